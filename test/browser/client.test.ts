import { expect } from '@open-wc/testing';
import {
  AbortError,
  AuthenticationError,
  downloadMessageAudio,
  extractText,
  isTurnComplete,
  MessageAudioCache,
  NotFoundError,
  SvcClient,
  SvcSdkError,
} from '../../src/index.js';
import { abortOnceStreaming } from '../helpers/abort.js';
import { mintVisitorSession, service } from '../helpers/browser-service.js';

/** The client in a real browser (the Node suites cover every member): what a page would do with it. */
async function visitor(): Promise<SvcClient> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  return new SvcClient({ baseUrl: url, apiKey: token, agentId: 'agent_echo', maxRetries: 0 });
}

describe('SvcClient in a browser', () => {
  it('sends a message and waits for the end of the turn', async () => {
    const client = await visitor();
    const turn = await client.sendMessage('from the browser');
    expect(turn.text).to.equal('Echo: from the browser');
    expect(isTurnComplete(turn.records.at(-1)!)).to.equal(true);
  });

  it('streams the records of a turn and reads them back from the history', async () => {
    const client = await visitor();
    const records = [];
    for await (const record of client.runTurn('streamed')) records.push(record);
    const deltas = records.filter((r) => r.raw.type === 'assistant_delta');
    expect(deltas.length).to.be.greaterThan(1);
    const conversationId = records[0].conversationId!;
    const { entries } = await client.chat.history(conversationId);
    expect(entries.map(extractText).filter(Boolean)).to.deep.equal(['streamed', 'Echo: streamed']);
  });

  it('uploads a Blob and downloads what the agent wrote', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const client = new SvcClient({ baseUrl: url, apiKey: token, agentId: 'agent_aria' });
    const uploaded = await client.files.upload(new Blob(['hello file'], { type: 'text/plain' }), {
      filename: 'note.txt',
    });
    expect(uploaded).to.include({ filename: 'note.txt', size: 10, mimeType: 'text/plain' });
    expect(await (await fetch(uploaded.url)).text()).to.equal('hello file');
    const turn = await client.sendMessage('/file');
    const blob = await client.files.downloadConversationFile(turn.conversationId, 'report.md');
    expect(await blob.text()).to.contain('#');
  });

  it('throws typed errors a page can tell apart', async () => {
    const { url } = await service();
    const stranger = new SvcClient({ baseUrl: url, apiKey: 'st_not_a_real_token', maxRetries: 0 });
    const denied = await stranger.chat.messages('c_missing').catch((err: unknown) => err);
    expect(denied).to.be.instanceOf(AuthenticationError);
    const client = await visitor();
    const missing = await client.chat.messages('c_missing').catch((err: unknown) => err);
    expect(missing).to.be.instanceOf(NotFoundError);
    expect((missing as NotFoundError).message).to.equal('conversation not found');
  });

  it('stops waiting when the page aborts', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // Aborted while the client waits for the reply's records.
    const controller = new AbortController();
    const client = new SvcClient({
      baseUrl: url,
      apiKey: token,
      agentId: 'agent_aria',
      fetch: abortOnceStreaming(controller),
    });
    const err = await client.sendMessage('/slow 10', { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(AbortError);
  });

  it('refuses a workspace key on a web page', async () => {
    const { url, apiKey } = await service();
    expect(() => new SvcClient({ baseUrl: url, apiKey })).to.throw(SvcSdkError, /workspace/i);
  });

  it('caches spoken replies and revokes the object URLs it evicts', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const client = new SvcClient({ baseUrl: url, apiKey: token, agentId: 'agent_echo' });
    const turn = await client.sendMessage('say this');
    const reply = turn.records.find((r) => r.raw.type === 'assistant')!;
    const messageId = (reply.raw as { message: { id: string } }).message.id;
    const blob = await downloadMessageAudio(client.http, 'agent_echo', turn.conversationId, messageId);
    expect(blob.type).to.equal('audio/wav');
    expect(blob.size).to.be.greaterThan(1000);

    const cache = new MessageAudioCache(1);
    const first = URL.createObjectURL(blob);
    cache.set('first', { blob, url: first });
    cache.set('second', { blob, url: URL.createObjectURL(blob) });
    expect(cache.size).to.equal(1);
    expect(cache.get('first')).to.equal(undefined);
    // A revoked object URL no longer loads.
    const loaded = await fetch(first).then(
      () => true,
      () => false,
    );
    expect(loaded).to.equal(false);
  });
});
