import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { espeakSynthesizer, MAX_SPOKEN_CHARS, speakableText } from '../../server/services/speech.js';
import { sendAndRead } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The parts of a WAV header a player relies on. */
function wavHeader(data: Buffer) {
  return {
    riff: data.toString('ascii', 0, 4),
    wave: data.toString('ascii', 8, 12),
    riffSize: data.readUInt32LE(4),
    byteRate: data.readUInt32LE(28),
    dataId: data.toString('ascii', 36, 40),
    dataSize: data.readUInt32LE(40),
  };
}

/** Sends `text` to the echo agent and waits for the end of its reply; returns the reply's message id. */
async function echoReply(server: TestServer, text: string) {
  const { sent } = await sendAndRead(server, 'pk_alice', { message: text, targetAgentIds: ['agent_echo'] });
  return { conversationId: sent.conversationId, messageId: sent.results[0]!.msgId };
}

describe('message audio (messageAudio)', () => {
  let server: TestServer;
  let conversationId: string;
  let messageId: string;
  before(async () => {
    server = await startTestServer();
    ({ conversationId, messageId } = await echoReply(server, 'The weather is lovely today. Shall we go for a walk?'));
  });
  after(() => server.close());

  const audio = (token = 'pk_alice', body: unknown = { conversationId }, agent = 'agent_echo', message = messageId) =>
    server.api(`/agents/${agent}/messages/${message}/audio`, { method: 'POST', token, json: body });

  it('reads a reply aloud as a playable WAV, then serves it from the cache', async () => {
    const first = await audio();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.messageId, messageId);
    assert.equal(first.body.conversationId, conversationId);
    assert.equal(first.body.mimeType, 'audio/wav');
    assert.equal(first.body.cached, false);
    const wav = Buffer.from(first.body.data, 'base64');
    assert.equal(first.body.size, wav.length);
    assert.ok(wav.length > 20_000, `a spoken sentence is more than ${wav.length} bytes`);
    const header = wavHeader(wav);
    assert.equal(header.riff, 'RIFF');
    assert.equal(header.wave, 'WAVE');
    assert.equal(header.dataId, 'data');
    assert.equal(header.riffSize, wav.length - 8, 'the RIFF size is the real one');
    assert.equal(header.dataSize, wav.length - 44, 'the data size is the real one');
    // Two short sentences take a couple of seconds to say.
    assert.ok(first.body.durationMs > 1000 && first.body.durationMs < 20_000, `${first.body.durationMs} ms`);
    assert.equal(first.body.durationMs, Math.round((header.dataSize / header.byteRate) * 1000));

    const second = await audio();
    assert.equal(second.body.cached, true);
    assert.equal(second.body.data, first.body.data);
    assert.equal(second.body.durationMs, first.body.durationMs);
  });

  it('streams the same audio bytes with an audio/wav content type', async () => {
    const json = await audio();
    const res = await fetch(`${server.url}/api/v2/agents/agent_echo/messages/${messageId}/audio/stream`, {
      method: 'POST',
      headers: { authorization: 'Bearer pk_alice', 'content-type': 'application/json' },
      body: JSON.stringify({ conversationId }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual(bytes, Buffer.from(json.body.data, 'base64'));
  });

  it("answers 404 for another user's conversation and for unknown messages", async () => {
    const bob = await audio('pk_bob');
    assert.deepEqual([bob.status, bob.body.detail], [404, 'conversation not found']);
    const unknownConversation = await audio('pk_alice', { conversationId: 'c_nope' });
    assert.deepEqual([unknownConversation.status, unknownConversation.body.detail], [404, 'conversation not found']);
    const unknownMessage = await audio('pk_alice', { conversationId }, 'agent_echo', 'm_nope');
    assert.deepEqual([unknownMessage.status, unknownMessage.body.detail], [404, 'message not found']);
    const wrongAgent = await audio('pk_alice', { conversationId }, 'agent_demo');
    assert.deepEqual([wrongAgent.status, wrongAgent.body.detail], [404, 'message not found']);
    const stream = await server.api(`/agents/agent_echo/messages/m_nope/audio/stream`, {
      method: 'POST',
      token: 'pk_alice',
      json: { conversationId },
    });
    assert.deepEqual([stream.status, stream.body.detail], [404, 'message not found']);
  });

  it('needs a user credential and a conversation id', async () => {
    const anonymous = await server.api(`/agents/agent_echo/messages/${messageId}/audio`, {
      method: 'POST',
      json: { conversationId },
    });
    assert.deepEqual([anonymous.status, anonymous.body.detail], [401, 'invalid Bearer token']);
    const noBody = await audio('pk_alice', {});
    assert.deepEqual([noBody.status, noBody.body.detail], [400, 'body/conversationId Required']);
  });

  it('answers 503 with a clear message where no synthesizer is installed', async () => {
    const other = await startTestServer();
    try {
      other.ctx.speech = espeakSynthesizer({ binary: '/nonexistent/espeak-ng' });
      const reply = await echoReply(other, 'hello');
      const res = await other.api(`/agents/agent_echo/messages/${reply.messageId}/audio`, {
        method: 'POST',
        token: 'pk_alice',
        json: { conversationId: reply.conversationId },
      });
      assert.deepEqual([res.status, res.body.detail], [503, 'speech synthesis is not available on this server']);
    } finally {
      await other.close();
    }
  });
});

describe('what is spoken', () => {
  it('reads the words of markdown, not its markup, code blocks or link targets', () => {
    const spoken = speakableText(
      '# Results\n\nThe **total** is `42`, see [the report](https://example.com/r).\n\n```js\nconsole.log(1)\n```\n\n- first item\n- second item\n\n| City | Sales |\n|---|---|\n| Paris | 12 |',
    );
    assert.doesNotMatch(spoken, /[#*`|[\]]|https:|console\.log/);
    for (const words of ['Results', 'The total is 42, see the report.', 'first item', 'second item', 'Paris, 12']) {
      assert.ok(spoken.includes(words), `"${words}" is spoken in ${JSON.stringify(spoken)}`);
    }
  });

  it('stops a long reply at the end of a sentence near 4,000 characters', () => {
    const spoken = speakableText('This sentence is about forty characters. '.repeat(200));
    assert.ok(spoken.length <= MAX_SPOKEN_CHARS && spoken.length > MAX_SPOKEN_CHARS - 100, `${spoken.length}`);
    assert.ok(spoken.endsWith('characters.'));
  });
});
