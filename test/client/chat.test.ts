import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AbortError,
  ApiTimeoutError,
  BadRequestError,
  type ChatStreamRecord,
  extractText,
  isInterrupt,
  NotFoundError,
  NotImplementedError,
  SvcClient,
} from '../../src/index.js';
import { abortOnceStreaming } from '../helpers/abort.js';
import { visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const kinds = (records: ChatStreamRecord[]) => records.map((r) => r.raw.type);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('client: chat', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('sendMessage waits for the end of the turn and collects it', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('hello there');
    assert.equal(turn.text, 'Echo: hello there');
    assert.match(turn.conversationId, /^c_/);
    assert.equal(turn.sessionId, turn.conversationId);
    assert.deepEqual(turn.toolCalls, []);
    assert.equal(turn.result?.type, 'result');
    assert.equal(turn.result?.type === 'result' && turn.result.subtype, 'success');
    assert.equal(turn.lastEventId, turn.records.at(-1)?.id);
    assert.deepEqual(kinds(turn.records), [
      'agent_status',
      'agent_status',
      'assistant_delta',
      'assistant_delta',
      'assistant_delta',
      'assistant',
      'agent_status',
      'result',
    ]);
  });

  it('runTurn yields the reply as it streams and stops after the result', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const records: ChatStreamRecord[] = [];
    for await (const record of client.runTurn('streaming')) records.push(record);
    assert.equal(records.at(-1)?.raw.type, 'result');
    const deltas = records.flatMap((r) => (r.raw.type === 'assistant_delta' ? [r.raw.text] : []));
    assert.equal(deltas.join(''), 'Echo: streaming');
    assert.equal(new Set(records.map((r) => r.id)).size, records.length);
  });

  it('sends every message under an Idempotency-Key of its own, or the one the caller gives', async () => {
    const keys: (string | null)[] = [];
    const recording: typeof fetch = (input, init) => {
      if (String(input).endsWith('/conversations/send')) keys.push(new Headers(init?.headers).get('idempotency-key'));
      return fetch(input, init);
    };
    const client = await visitorClient(server, { fetch: recording });
    const first = await client.chat.send({ message: 'one', targetAgentIds: ['agent_echo'] });
    await collect(client.chat.followTurn(first));
    await client.chat.send({ message: 'two', conversationId: first.conversationId });
    assert.equal(keys.length, 2);
    assert.notEqual(keys[0], keys[1]);
    for (const key of keys) assert.match(key!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // A key given by the caller is the key: the same message sent again under it is answered, not stored again.
    const again = await client.chat.send(
      { message: 'one', targetAgentIds: ['agent_echo'] },
      { idempotencyKey: keys[0]! },
    );
    assert.deepEqual(again, first);
    assert.equal(keys[2], keys[0]);
  });

  it('send returns at once; resumeTurn reads the reply from userEventId', async () => {
    const client = await visitorClient(server);
    const sent = await client.chat.send({ message: 'later', targetAgentIds: ['agent_echo'] });
    assert.ok(sent.userEventId);
    assert.equal(sent.userMessage?.id, sent.userEventId);
    assert.deepEqual(
      sent.results.map((r) => r.agentId),
      ['agent_echo'],
    );
    const records: ChatStreamRecord[] = [];
    for await (const record of client.chat.resumeTurn(sent.conversationId, { lastEventId: sent.userEventId })) {
      records.push(record);
    }
    const reply = records.find((r) => r.raw.type === 'assistant');
    assert.equal(extractText(reply!), 'Echo: later');
    assert.equal(reply?.raw.type === 'assistant' && reply.raw.message.id, sent.results[0]?.msgId);
    assert.equal(records.at(-1)?.raw.type, 'result');
  });

  it('continues a conversation by id; messages and history read it back', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const first = await client.sendMessage('one');
    await client.sendMessage('two', { conversationId: first.conversationId });
    await client.sendMessage('three', { conversationId: first.conversationId });

    const { entries } = await client.chat.messages(first.conversationId);
    assert.deepEqual(entries.map(extractText).filter(Boolean), [
      'one',
      'Echo: one',
      'two',
      'Echo: two',
      'three',
      'Echo: three',
    ]);
    assert.ok(!kinds(entries).includes('assistant_delta'));

    const page = await client.chat.history(first.conversationId, { turns: 1 });
    assert.equal(page.hasMore, true);
    assert.deepEqual(page.entries.map(extractText).filter(Boolean), ['three', 'Echo: three']);
    const older = await client.chat.history(first.conversationId, { before: page.entries[0]!.id, turns: 5 });
    assert.equal(older.hasMore, false);
    assert.deepEqual(older.entries.map(extractText).filter(Boolean), ['one', 'Echo: one', 'two', 'Echo: two']);
  });

  it('targetAgentIds defaults to the configured agent; a message without conversationId continues the latest', async () => {
    const demo = await visitorClient(server, { agentId: 'agent_demo' });
    const turn = await demo.sendMessage('/think');
    assert.equal(turn.text, 'The answer is **42**.');
    const next = await demo.sendMessage('/think');
    assert.equal(next.conversationId, turn.conversationId);
    const fresh = await demo.sendMessage('/think', { newConversation: true });
    assert.notEqual(fresh.conversationId, turn.conversationId);
  });

  it('sends mcpTokens with every message; a message’s own tokens win on the same key', async () => {
    const bodies: Record<string, unknown>[] = [];
    const spy: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string') bodies.push(JSON.parse(init.body));
      return fetch(input, init);
    };
    const client = await visitorClient(server, {
      agentId: 'agent_echo',
      fetch: spy,
      mcpTokens: async () => ({ github: 'client-gh', jira: 'client-jira' }),
    });
    await client.sendMessage('a', { mcpTokens: { github: 'turn-gh' } });
    const conversation = client.conversation({ mcpTokens: { jira: 'conv-jira', slack: 'conv-slack' } });
    await conversation.send('b', { mcpTokens: { slack: 'turn-slack' } });
    assert.deepEqual(bodies[0]?.mcpTokens, { github: 'turn-gh', jira: 'client-jira' });
    assert.deepEqual(bodies[1]?.mcpTokens, { github: 'client-gh', jira: 'conv-jira', slack: 'turn-slack' });
    const plain = await visitorClient(server, { agentId: 'agent_echo', fetch: spy });
    await plain.sendMessage('c');
    assert.equal('mcpTokens' in (bodies.at(-1) ?? {}), false);
  });

  it('interrupt stops a running reply; the turn ends interrupted', async () => {
    const client = await visitorClient(server, { agentId: 'agent_demo' });
    const records: ChatStreamRecord[] = [];
    let interrupted: unknown;
    for await (const record of client.runTurn('/slow 20')) {
      records.push(record);
      if (record.raw.type === 'assistant_delta' && !interrupted) {
        interrupted = await client.chat.interrupt(record.conversationId!);
      }
    }
    assert.equal((interrupted as { interrupted: boolean }).interrupted, true);
    const last = records.at(-1)!;
    assert.ok(isInterrupt(last));
    assert.deepEqual(await client.chat.interrupt(last.conversationId!), {
      interrupted: false,
      reason: 'no reply is running',
    });
  });

  it('stream() follows a conversation live and reports when it is open', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const { conversationId } = await client.sendMessage('first');
    const states: string[] = [];
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const seen: ChatStreamRecord[] = [];
    const reading = (async () => {
      for await (const record of client.chat.stream(conversationId, {
        onConnectionChange: (state) => {
          states.push(state);
          if (state === 'open') opened();
        },
      })) {
        seen.push(record);
        if (record.raw.type === 'result') break;
      }
    })();
    await open;
    await client.sendMessage('second', { conversationId });
    await reading;
    assert.deepEqual(states, ['open']);
    // It starts at the live tail: nothing of the first turn, all of the second.
    assert.deepEqual(seen.map(extractText).filter(Boolean), ['second', 'Echo: second']);
  });

  it('stream() refuses a cursor past the end with BadRequestError instead of listening to nothing', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('the end');
    const past = `e${String(Number(turn.lastEventId!.slice(1)) + 1000).padStart(15, '0')}`;
    const states: string[] = [];
    // A stream that opened would hear nothing: it is ended as it opens, so the test fails instead of waiting.
    const opened = new AbortController();
    const records = client.chat.stream(turn.conversationId, {
      lastEventId: past,
      signal: opened.signal,
      onConnectionChange: (state) => {
        states.push(state);
        opened.abort();
      },
    });
    const refused = await records.next().then(
      (read) => read,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof BadRequestError, `not refused: ${String(refused)}`);
    assert.equal(refused.message, 'lastEventId is past the newest record of this conversation');
    assert.deepEqual(states, [], 'never open, never reconnecting');
  });

  it('stream() with lastEventId replays what came after the cursor', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const first = await client.sendMessage('one');
    await client.sendMessage('two', { conversationId: first.conversationId });
    const replay: ChatStreamRecord[] = [];
    for await (const record of client.chat.stream(first.conversationId, { lastEventId: first.lastEventId })) {
      replay.push(record);
      if (record.raw.type === 'result') break;
    }
    assert.deepEqual(replay.map(extractText).filter(Boolean), ['two', 'Echo: two']);
  });

  it('the caller’s signal ends a stream with AbortError', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const { conversationId } = await client.sendMessage('quiet');
    const controller = new AbortController();
    const reader = new SvcClient({ ...client.http.config, fetch: abortOnceStreaming(controller) });
    await assert.rejects(async () => {
      for await (const _ of reader.chat.stream(conversationId, { signal: controller.signal })) {
        // The conversation is quiet: nothing arrives before the abort.
      }
    }, AbortError);
  });

  it('a wait without records for idleTimeoutMs is ApiTimeoutError', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('done');
    const started = Date.now();
    await assert.rejects(async () => {
      for await (const _ of client.chat.resumeTurn(turn.conversationId, {
        lastEventId: turn.lastEventId!,
        idleTimeoutMs: 300,
      })) {
        // The turn is over: no record will come.
      }
    }, ApiTimeoutError);
    assert.ok(Date.now() - started < 10_000);
  });

  it('the signal of a send cancels the wait for the reply with AbortError', async () => {
    const controller = new AbortController();
    const client = await visitorClient(server, { agentId: 'agent_demo', fetch: abortOnceStreaming(controller) });
    const conversation = client.conversation();
    await assert.rejects(conversation.send('/slow 10', { signal: controller.signal }), AbortError);
    // The reply still runs: the abort did not wait for it.
    assert.equal((await conversation.interrupt()).interrupted, true);
    await assert.rejects(client.sendMessage('late', { signal: AbortSignal.abort() }), AbortError);
  });

  it('reads a reply aloud, as base64 and as bytes, cached after the first time', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('read me aloud');
    const reply = turn.records.find((r) => r.raw.type === 'assistant')!;
    const messageId = reply.raw.type === 'assistant' ? reply.raw.message.id : '';
    const audio = await client.chat.messageAudio('agent_echo', messageId, turn.conversationId);
    assert.equal(audio.mimeType, 'audio/wav');
    assert.equal(audio.messageId, messageId);
    assert.equal(audio.cached, false);
    const bytes = Buffer.from(audio.data, 'base64');
    assert.equal(bytes.length, audio.size);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.ok(audio.durationMs > 0);
    assert.equal((await client.chat.messageAudio('agent_echo', messageId, turn.conversationId)).cached, true);
  });

  it('lists, renames and deletes conversations: chat.listConversations, renameConversation, deleteConversation', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const ids: string[] = [];
    for (const text of ['first', 'second', 'third']) {
      ids.push((await client.sendMessage(text, { newConversation: true })).conversationId);
    }
    const first = await client.chat.listConversations({ limit: 2 });
    assert.deepEqual(
      first.conversations.map((c) => [c.id, c.title, c.lastMessage?.text]),
      [
        [ids[2], 'third', 'Echo: third'],
        [ids[1], 'second', 'Echo: second'],
      ],
    );
    const rest = await client.chat.listConversations({ cursor: first.nextCursor! });
    assert.deepEqual(
      rest.conversations.map((c) => c.id),
      [ids[0]],
    );
    assert.equal(rest.nextCursor, null);
    assert.equal((await client.chat.renameConversation(ids[0]!, 'Renamed')).title, 'Renamed');
    await client.chat.deleteConversation(ids[1]!);
    assert.deepEqual(
      (await client.chat.listConversations()).conversations.map((c) => [c.id, c.title]),
      [
        [ids[2], 'third'],
        [ids[0], 'Renamed'],
      ],
    );
    await assert.rejects(client.chat.deleteConversation(ids[1]!), NotFoundError);
    await assert.rejects(client.chat.listConversations({ cursor: 'x' }), BadRequestError);
    // The spec's reserved methods stay reserved (section 9).
    assert.throws(() => client.listSessions(), NotImplementedError);
  });

  it('stores connector credentials; the values are never returned', async () => {
    const client = await visitorClient(server);
    const saved = await client.chat.submitConnectorCredentials('github', { api_key: 'ghp_secret', account: 'ada' });
    assert.equal(saved.connectorTypeId, 'github');
    assert.deepEqual([...saved.fields].sort(), ['account', 'api_key']);
    assert.doesNotMatch(JSON.stringify(saved), /ghp_secret/);
  });
});

describe('client: Conversation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('has no id until the first send, then keeps using it', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const earlier = await client.sendMessage('an older conversation');
    const conversation = client.conversation();
    assert.equal(conversation.id, undefined);
    assert.deepEqual(await conversation.interrupt(), { interrupted: false, reason: 'no reply is running' });
    const first = await conversation.send('one');
    assert.equal(conversation.id, first.conversationId);
    assert.notEqual(conversation.id, earlier.conversationId, 'a new handle starts a new conversation');
    const records: ChatStreamRecord[] = [];
    for await (const record of conversation.stream('two', { senderName: 'Ada' })) records.push(record);
    assert.equal(records.at(-1)?.conversationId, first.conversationId);
    const { entries } = await client.chat.messages(first.conversationId);
    const user = entries.filter((r) => r.raw.type === 'user').at(-1)!;
    assert.equal(user.raw.type === 'user' && user.raw.senderName, 'Ada');
  });

  it('targets its agents and continues a given conversation id', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const conversation = client.conversation({ targetAgentIds: ['agent_demo'] });
    assert.equal((await conversation.send('/think')).text, 'The answer is **42**.');
    const again = client.chat.conversation({ conversationId: conversation.id });
    assert.equal(again.id, conversation.id);
    assert.equal((await again.send('/think')).conversationId, conversation.id);
  });

  it('interrupt() stops its running reply', async () => {
    const client = await visitorClient(server, { agentId: 'agent_demo' });
    const conversation = client.conversation();
    let result: unknown;
    const records: ChatStreamRecord[] = [];
    for await (const record of conversation.stream('/slow 20')) {
      records.push(record);
      if (record.raw.type === 'assistant_delta' && !result) result = await conversation.interrupt();
    }
    assert.equal((result as { interrupted: boolean }).interrupted, true);
    assert.ok(isInterrupt(records.at(-1)!));
  });

  it('submitConnectorSetup saves the values and tells the agent, which then finds them', async () => {
    const client = await visitorClient(server, { agentId: 'agent_demo' });
    const conversation = client.conversation();
    const ask = await conversation.send('/connect notion');
    const setup = {
      toolUseId: ask.toolCalls[0]!.id!,
      connectorTypeId: 'notion',
      name: 'Notion',
      fields: [{ name: 'api_key', label: 'API key' }],
    };
    const turn = await conversation.submitConnectorSetup(setup, { api_key: 'secret_123' });
    assert.equal(turn?.text, 'Thanks, **Notion** is connected now (stored fields: api_key).');
    const { entries } = await client.chat.messages(conversation.id!);
    const notice = entries.filter((r) => r.raw.type === 'user').at(-1)!;
    assert.equal(extractText(notice), 'Connected Notion.');
    assert.equal(notice.raw.type === 'user' && notice.raw.toolAction, true);
    assert.deepEqual(notice.raw.type === 'user' && notice.raw.metadata, {
      connectorSetup: { connectorTypeId: 'notion', status: 'submitted' },
    });
    const quiet = await conversation.submitConnectorSetup(
      { ...setup, connectorTypeId: 'linear' },
      { api_key: 'x' },
      {
        notify: false,
      },
    );
    assert.equal(quiet, undefined);
    assert.equal((await conversation.send('/connect linear')).text.startsWith('**Linear** is connected'), true);
  });

  it('works for a personal API key too', async () => {
    const alice = new SvcClient({ apiKey: 'pk_alice', baseUrl: server.url, agentId: 'agent_echo' });
    assert.equal((await alice.conversation().send('hi')).text, 'Echo: hi');
  });
});
