import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  type ChatStreamRecord,
  extractText,
  isInterrupt,
  SvcClient,
  SvcSdkError,
  TrainingChat,
} from '../../src/index.js';
import { adminClient, visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function collect(records: AsyncIterable<ChatStreamRecord>): Promise<ChatStreamRecord[]> {
  const out: ChatStreamRecord[] = [];
  for await (const record of records) out.push(record);
  return out;
}

describe('client: training', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('runTurn sends and yields the reply through the end of the turn', async () => {
    const training = adminClient(server).training('agent_echo');
    const records = await collect(training.runTurn('practice'));
    assert.equal(records.at(-1)?.raw.type, 'result');
    assert.equal(records.filter((r) => r.raw.type === 'user').length, 0, 'the reply only');
    assert.deepEqual(records.map(extractText).filter(Boolean), ['Echo: practice']);
  });

  it('send, then messages pages the history; stream replays the last turns', async () => {
    const training = adminClient(server, { agentId: 'agent_echo' }).training();
    assert.equal(training.agentId, 'agent_echo');
    await collect(training.runTurn('first'));
    const sent = await training.send({ message: 'second' });
    assert.equal(sent.ok, true);
    assert.match(sent.msgId ?? '', /^m_/);

    const replay: ChatStreamRecord[] = [];
    let results = 0;
    for await (const record of training.stream({ turns: 2 })) {
      replay.push(record);
      if (record.raw.type === 'result' && ++results === 2) break;
    }
    assert.deepEqual(replay.map(extractText).filter(Boolean), ['first', 'Echo: first', 'second', 'Echo: second']);

    const page = await training.messages();
    assert.deepEqual(page.entries.map(extractText).filter(Boolean).slice(-4), [
      'first',
      'Echo: first',
      'second',
      'Echo: second',
    ]);
    const older = await training.messages({ before: page.entries.at(-2)!.id });
    assert.ok(older.entries.every((r) => r.id < page.entries.at(-2)!.id));
  });

  it('interrupt stops a running training reply', async () => {
    const training = new TrainingChat({ apiKey: 'lt_acme_owner', baseUrl: server.url }, 'agent_demo');
    let result: unknown;
    let last: ChatStreamRecord | undefined;
    for await (const record of training.runTurn('/slow 20')) {
      if (record.raw.type === 'assistant_delta' && !result) result = await training.interrupt();
      last = record;
    }
    assert.equal((result as { interrupted: boolean }).interrupted, true);
    assert.ok(isInterrupt(last!));
  });

  it('needs an agent id and an operator credential', async () => {
    assert.throws(
      () => new SvcClient({ apiKey: 'sk_acme_1' }).training(),
      (err: unknown) => {
        assert.ok(err instanceof SvcSdkError);
        assert.match(err.message, /agent id/);
        return true;
      },
    );
    const visitor = await visitorClient(server);
    await assert.rejects(
      collect(visitor.training('agent_echo').runTurn('hi')),
      (err: unknown) => err instanceof AuthenticationError && err.message === 'workspace API key required',
    );
  });
});
