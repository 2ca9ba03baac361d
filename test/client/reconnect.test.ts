import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ApiConnectionError,
  type ChatStreamRecord,
  NotFoundError,
  type SendResult,
  SvcClient,
} from '../../src/index.js';
import { type CuttingProxy, startCuttingProxy } from '../helpers/proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ids = (records: ChatStreamRecord[]) => records.map((r) => r.id);

async function collect(records: AsyncIterable<ChatStreamRecord>): Promise<ChatStreamRecord[]> {
  const out: ChatStreamRecord[] = [];
  for await (const record of records) out.push(record);
  return out;
}

describe('client: stream reconnection through a connection-cutting proxy', () => {
  let server: TestServer;
  let proxy: CuttingProxy;
  /** Talks to the service directly: sends, and reads the reference records. */
  let direct: SvcClient;
  /** The same user through the proxy. */
  let flaky: SvcClient;
  before(async () => {
    server = await startTestServer();
    proxy = await startCuttingProxy(server.url);
    direct = new SvcClient({ apiKey: 'pk_alice', baseUrl: server.url, agentId: 'agent_demo' });
    flaky = new SvcClient({ apiKey: 'pk_alice', baseUrl: proxy.url });
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  /** A finished turn with many records (a long markdown reply in small deltas) and its reference records. */
  async function finishedTurn(): Promise<{ sent: SendResult; reference: ChatStreamRecord[] }> {
    const sent = await direct.chat.send({
      message: '/markdown',
      newConversation: true,
      targetAgentIds: ['agent_demo'],
    });
    const reference = await collect(direct.chat.followTurn(sent));
    assert.ok(reference.length > 100, `only ${reference.length} records`);
    return { sent, reference };
  }

  it('loses and repeats no record when cut at chosen offsets, mid-record included', async () => {
    const { sent, reference } = await finishedTurn();
    const offsets = [150, 1_000, 1_001, 4_321, 20];
    proxy.cutAt(offsets);
    const cutsBefore = proxy.cuts;
    const records = await collect(flaky.chat.followTurn(sent));
    assert.deepEqual(ids(records), ids(reference));
    assert.deepEqual(records, reference);
    assert.equal(proxy.cuts - cutsBefore, offsets.length);
  });

  it('reconnects a live turn cut while the reply streams', async () => {
    const sent = await direct.chat.send({ message: '/slow 2', newConversation: true, targetAgentIds: ['agent_demo'] });
    proxy.cutAt([700, 900, 1_200]);
    const cutsBefore = proxy.cuts;
    const records = await collect(flaky.chat.followTurn(sent));
    const reference = await collect(direct.chat.followTurn(sent));
    assert.equal(proxy.cuts - cutsBefore, 3);
    assert.deepEqual(ids(records), ids(reference));
    assert.equal(records.at(-1)?.raw.type, 'result');
  });

  it('for any cut offsets, reads exactly the records of the turn', async () => {
    const { sent, reference } = await finishedTurn();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 12_000 }), { minLength: 1, maxLength: 3 }),
        async (offsets) => {
          proxy.cutAt(offsets);
          const records = await collect(flaky.chat.followTurn(sent));
          proxy.cutAt([]);
          assert.deepEqual(ids(records), ids(reference));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('stream() reports reconnecting and open, and resumes after the last record it yielded', async () => {
    const first = await direct.sendMessage('/help', { newConversation: true });
    const states: string[] = [];
    const seen: ChatStreamRecord[] = [];
    proxy.cutAt([2_000]);
    for await (const record of flaky.chat.stream(first.conversationId, {
      lastEventId: first.records[0]!.id,
      onConnectionChange: (state) => states.push(state),
    })) {
      seen.push(record);
      if (record.raw.type === 'result') break;
    }
    assert.deepEqual(states, ['open', 'reconnecting', 'open']);
    assert.deepEqual(ids(seen), ids(first.records.slice(1)));
  });

  it('with reconnect: false a cut ends the stream with ApiConnectionError', async () => {
    const { sent } = await finishedTurn();
    proxy.cutAt([3_000]);
    await assert.rejects(
      collect(flaky.chat.stream(sent.conversationId, { lastEventId: sent.userEventId, reconnect: false })),
      ApiConnectionError,
    );
  });

  it('does not reconnect after an error that a retry cannot fix', async () => {
    const connections = proxy.connections;
    await assert.rejects(collect(flaky.chat.stream('c_unknown')), NotFoundError);
    assert.ok(proxy.connections - connections <= 1);
  });

  it('breaking out of the loop closes the connection', async () => {
    const { sent } = await finishedTurn();
    const readers = () => server.ctx.records.readers(sent.conversationId);
    for await (const record of flaky.chat.stream(sent.conversationId, { lastEventId: sent.userEventId })) {
      assert.equal(readers(), 1);
      if (record.raw.type === 'assistant_delta') break;
    }
    await server.readersGone(sent.conversationId);
  });

  it('a finished turn closes its stream', async () => {
    const { sent } = await finishedTurn();
    await collect(flaky.chat.followTurn(sent));
    await server.readersGone(sent.conversationId);
  });
});
