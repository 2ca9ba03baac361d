import assert from 'node:assert/strict';
import { resolveObjectURL } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { downloadMessageAudio, MessageAudioCache, NotFoundError } from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const entry = (text: string) => {
  const blob = new Blob([text], { type: 'audio/wav' });
  return { blob, url: URL.createObjectURL(blob) };
};

/** Whether an object URL still resolves to its Blob (false once revoked). */
const alive = (url: string) => resolveObjectURL(url) !== undefined;

describe('client: MessageAudioCache', () => {
  it('holds 10 entries by default and evicts the least recently used, releasing its URL', () => {
    const cache = new MessageAudioCache();
    assert.equal(cache.capacity, 10);
    const entries = Array.from({ length: 11 }, (_, i) => entry(`audio ${i}`));
    for (const [i, e] of entries.slice(0, 10).entries()) cache.set(`m${i}`, e);
    assert.equal(cache.size, 10);
    cache.get('m0'); // now the most recently used: m1 is the oldest
    cache.set('m10', entries[10]!);
    assert.equal(cache.size, 10);
    assert.equal(cache.get('m1'), undefined);
    assert.equal(alive(entries[1]!.url), false, 'the evicted URL is revoked');
    assert.equal(cache.get('m0'), entries[0]);
    assert.ok(alive(entries[0]!.url));
  });

  it('evicts in least-recently-used order', () => {
    const cache = new MessageAudioCache(3);
    for (const key of ['a', 'b', 'c']) cache.set(key, entry(key));
    cache.get('a');
    cache.set('d', entry('d')); // evicts b
    cache.get('c');
    cache.set('e', entry('e')); // evicts a
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined),
      [false, false, true, true, true],
    );
  });

  it('replacing an entry releases the old URL; clear releases everything', () => {
    const cache = new MessageAudioCache(5);
    const first = entry('one');
    const second = entry('two');
    cache.set('m', first);
    cache.set('m', second);
    assert.equal(cache.size, 1);
    assert.equal(alive(first.url), false);
    assert.ok(alive(second.url));
    const other = entry('three');
    cache.set('n', other);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(alive(second.url), false);
    assert.equal(alive(other.url), false);
  });

  it('keeps entries without a URL and never revokes URLs it does not own', () => {
    const cache = new MessageAudioCache(1);
    cache.set('plain', { blob: new Blob(['x']) });
    cache.set('remote', { blob: new Blob(['y']), url: 'https://cdn.example/a.wav' });
    assert.equal(cache.size, 1);
    assert.equal(cache.get('remote')?.url, 'https://cdn.example/a.wav');
  });
});

describe('client: downloadMessageAudio', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('downloads a reply as WAV bytes, ready for the cache and an <audio> element', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('say this');
    const reply = turn.records.find((r) => r.raw.type === 'assistant')!;
    const messageId = reply.raw.type === 'assistant' ? reply.raw.message.id : '';
    const blob = await downloadMessageAudio(client.http, 'agent_echo', turn.conversationId, messageId);
    assert.equal(blob.type, 'audio/wav');
    assert.equal(Buffer.from(await blob.slice(0, 4).arrayBuffer()).toString('latin1'), 'RIFF');
    const cache = new MessageAudioCache();
    cache.set(messageId, { blob, url: URL.createObjectURL(blob) });
    assert.equal(cache.get(messageId)?.blob, blob);
    await assert.rejects(
      downloadMessageAudio(client.http, 'agent_echo', turn.conversationId, 'm_missing'),
      (err: unknown) => err instanceof NotFoundError && err.message === 'message not found',
    );
  });
});
