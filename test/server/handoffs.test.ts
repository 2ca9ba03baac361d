import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Fixture } from '../../server/boot/fixture.js';
import { NOBODY_THERE } from '../../server/runtimes/nobody-there.js';
import type { OperatorQueue } from '../../src/protocol/handoff-types.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { kinds, replyText, send, sessionToken, streamUrl } from '../helpers/conversation.js';
import { type ModelServer, pieces, startModelServer } from '../helpers/model-server.mjs';
import { testPostgres } from '../helpers/postgres.js';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { openSse, type SseReader } from '../helpers/sse.js';
import { uniqueRef } from '../helpers/workspace.js';

/*
 * A person in the conversation (docs/protocol.md): operators signed in by the site's backend, a conversation handed
 * to them by its visitor or its agent, taken exactly once, held (the agents quiet), released or closed, and nobody
 * there. Over HTTP, on SQLite and (SVC_TEST_DATABASE=postgres) PostgreSQL; the race across instances always on
 * PostgreSQL.
 */

const [acme, globex] = FIXTURE.workspaces!;
const MODEL_KEY_ENV = 'SVC_TEST_MODEL_KEY';
/** The scripted model server a `model` agent of acme (Ada) talks to. */
let model: ModelServer;
/**
 * acme's staff take conversations (and it has a model agent); globex has none; hooli's visitors wait a second
 * for a person.
 */
const handoffFixture = (modelUrl = 'http://127.0.0.1:9/v1'): Fixture => ({
  ...FIXTURE,
  workspaces: [
    {
      ...acme!,
      operators: {},
      agents: [
        ...acme!.agents!,
        {
          id: 'agent_ada',
          name: 'Ada',
          runtime: 'model',
          model: 'scripted-1',
          base_url: modelUrl,
          api_key_env: MODEL_KEY_ENV,
        },
      ],
    },
    globex!,
    {
      slug: 'hooli',
      display_name: 'Hooli',
      owner: { user_id: 'owner_hooli', login_token: 'lt_hooli_owner', wallet: 100 },
      operators: { wait_seconds: 1 },
      api_keys: [{ id: 'key_hooli_1', secret: 'sk_hooli_1' }],
      agents: [{ id: 'agent_hooli', name: 'Hooli Echo', runtime: 'echo' }],
    },
  ],
});
const HANDOFF_FIXTURE = handoffFixture();

const KEYS: Record<string, string> = { acme: 'sk_acme_1', globex: 'sk_globex_1', hooli: 'sk_hooli_1' };

let server: TestServer;
before(async () => {
  process.env[MODEL_KEY_ENV] = 'sk-test-handoffs';
  model = await startModelServer();
  server = await startTestServer({ fixture: handoffFixture(model.url) });
});
after(async () => {
  await server.close();
  await model.close();
});

/** An operator of `slug`, signed in over HTTP with the workspace key. */
async function operator(name = 'Alex', slug = 'acme', at: TestServer = server) {
  const res = await at.api(`/workspaces/${slug}/operators/sessions`, {
    method: 'POST',
    token: KEYS[slug],
    json: { operator_ref: uniqueRef('staff'), display_name: name, avatar_url: 'https://example.com/alex.png' },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { token: res.body.token as string, id: res.body.operator_id as string };
}

/** A visitor of `slug` with a conversation (its first message answered by `agent`). */
async function visitorWithConversation(slug = 'acme', agent = 'agent_echo', at: TestServer = server) {
  const visitor = await sessionToken(at, slug, KEYS[slug]);
  const sent = await send(at, visitor.token, { message: 'hello', targetAgentIds: [agent] });
  const reader = await openSse(streamUrl(at, sent.conversationId, sent.userEventId), { token: visitor.token });
  await reader.untilResult();
  return { ...visitor, conversationId: sent.conversationId, reader };
}

/** Waits for the first record after the `count` already read that matches `match`. */
const next = (reader: SseReader, count: number, match: (record: ChatStreamRecord) => boolean) =>
  reader.waitFor((records) => records.slice(count).some(match)).then((records) => records.slice(count).find(match)!);

const asks = (at: TestServer, token: string, conversationId: string, reason?: string) =>
  at.api(`/conversations/${conversationId}/handoff`, { method: 'POST', token, json: reason ? { reason } : {} });

const hold = (at: TestServer, token: string, conversationId: string, action: 'take' | 'release' | 'close') =>
  at.api(`/operators/conversations/${conversationId}/${action}`, { method: 'POST', token, json: {} });

/** Every queue a queue stream told, in order. */
const queuesTold = (stream: SseReader): OperatorQueue[] =>
  stream.others.filter((e) => e.event === 'queue').map((e) => JSON.parse(e.data) as OperatorQueue);

const queueOf = async (token: string, at: TestServer = server): Promise<OperatorQueue> => {
  const res = await at.api('/operators/queue', { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

describe('operator sessions', () => {
  it('the workspace key mints a short-lived operator token; the same operator_ref is the same operator', async () => {
    const ref = uniqueRef('staff');
    const mint = (display_name: string) =>
      server.api('/workspaces/acme/operators/sessions', {
        method: 'POST',
        token: 'sk_acme_1',
        json: { operator_ref: ref, display_name, ttl_seconds: 60 },
      });
    const first = await mint('Alex');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.match(first.body.token, /^ot_/);
    const lifetime = Date.parse(first.body.expires_at) - Date.now();
    assert.ok(lifetime > 0 && lifetime <= 60_000, `expires in ${lifetime} ms`);
    // Renewed the same way; the later name is the one visitors see.
    const renewed = await mint('Alex B.');
    assert.equal(renewed.body.operator_id, first.body.operator_id);
    assert.notEqual(renewed.body.token, first.body.token);
    const { conversationId } = await visitorWithConversation();
    const visitor = (await server.api(`/conversations/${conversationId}/history`, { token: 'pk_alice' })).status;
    assert.equal(visitor, 404, 'a stranger reads nothing');
  });

  it('refuses a workspace without operators, a visitor, another workspace key and bad fields', async () => {
    const body = { operator_ref: 'staff-x', display_name: 'Alex' };
    const globexOff = await server.api('/workspaces/globex/operators/sessions', {
      method: 'POST',
      token: 'sk_globex_1',
      json: body,
    });
    assert.deepEqual([globexOff.status, globexOff.body], [403, { detail: 'this workspace has no operators' }]);
    const visitor = await sessionToken(server);
    const asVisitor = await server.api('/workspaces/acme/operators/sessions', {
      method: 'POST',
      token: visitor.token,
      json: body,
    });
    assert.deepEqual([asVisitor.status, asVisitor.body], [403, { detail: 'not the owner of this workspace' }]);
    const otherKey = await server.api('/workspaces/acme/operators/sessions', {
      method: 'POST',
      token: 'sk_hooli_1',
      json: body,
    });
    assert.deepEqual([otherKey.status, otherKey.body], [403, { detail: 'API key does not match workspace' }]);
    const badPicture = await server.api('/workspaces/acme/operators/sessions', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { ...body, avatar_url: 'javascript:alert(1)' },
    });
    assert.deepEqual([badPicture.status, badPicture.body], [400, { detail: 'body/avatar_url must be an http(s) URL' }]);
  });
});

describe('a conversation handed to a person', () => {
  it('waits, is taken, hears both ways, and goes back to the agent that reads what was said', async () => {
    const visitor = await visitorWithConversation();
    const alex = await operator('Alex');
    const { conversationId, reader } = visitor;

    const asked = await asks(server, visitor.token, conversationId, 'I was charged twice');
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.state, 'waiting');
    const requested = await next(reader, 0, (r) => r.raw.type === 'handoff_requested');
    assert.deepEqual(requested.raw, { type: 'handoff_requested', by: 'visitor', reason: 'I was charged twice' });
    // Asking again changes nothing.
    const again = await asks(server, visitor.token, conversationId);
    assert.deepEqual(again.body, asked.body);

    const queue = await queueOf(alex.token);
    const entry = queue.waiting.find((e) => e.conversationId === conversationId);
    assert.ok(entry, 'the waiting conversation is in the queue');
    assert.equal(entry.reason, 'I was charged twice');
    assert.equal(entry.requestedBy, 'visitor');
    assert.deepEqual(
      entry.lastMessages.map((m) => [m.from, m.text]),
      [
        ['visitor', 'hello'],
        ['agent', 'Echo: hello'],
      ],
    );

    // While waiting, what the visitor writes is stored for the person and no agent answers.
    let count = reader.records.length;
    const waitingSend = await send(server, visitor.token, { message: 'anyone there?', conversationId });
    const quiet = await next(reader, count, (r) => r.raw.type === 'result');
    assert.deepEqual(waitingSend.results, []);
    assert.deepEqual(quiet.raw.type === 'result' && quiet.raw.agentIds, []);
    assert.deepEqual(kinds(reader.records.slice(count)), ['user', 'result']);

    const taken = await hold(server, alex.token, conversationId, 'take');
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.equal(taken.body.state, 'human');
    assert.deepEqual(taken.body.operator, { id: alex.id, name: 'Alex', avatarUrl: 'https://example.com/alex.png' });
    await next(reader, count, (r) => r.raw.type === 'operator_joined');

    // The operator reads the conversation and writes; the visitor's stream has it as a person's message.
    const operatorStream = await openSse(
      `${server.url}/api/v2/operators/conversations/${conversationId}/stream?lastEventId=${requested.id}`,
      { token: alex.token },
    );
    await operatorStream.waitFor((records) => records.some((r) => r.raw.type === 'operator_joined'));
    count = reader.records.length;
    const said = await server.api(`/operators/conversations/${conversationId}/messages`, {
      method: 'POST',
      token: alex.token,
      json: { message: 'Hello, this is Alex. Let me look.' },
    });
    assert.equal(said.status, 200, JSON.stringify(said.body));
    const person = await next(reader, count, (r) => r.raw.type === 'operator_message');
    assert.equal(person.sender, 'system');
    assert.equal(person.agentId, undefined);
    assert.deepEqual(person.raw.type === 'operator_message' && person.raw.operator.name, 'Alex');

    const operatorCount = operatorStream.records.length;
    await send(server, visitor.token, { message: 'thanks, order 42', conversationId });
    const heard = await next(operatorStream, operatorCount, (r) => r.raw.type === 'user');
    assert.equal(heard.raw.type === 'user' && heard.raw.message.content[0]?.type, 'text');
    operatorStream.close();

    // A reload reads who holds it, with the history.
    const history = await server.api(`/conversations/${conversationId}/history`, { token: visitor.token });
    assert.equal(history.body.handoff.state, 'human');
    assert.equal(history.body.handoff.operator.name, 'Alex');

    const released = await hold(server, alex.token, conversationId, 'release');
    assert.deepEqual([released.status, released.body.state], [200, 'agent']);
    count = reader.records.length;
    const back = await send(server, visitor.token, { message: 'and now?', conversationId });
    assert.equal(back.results.length, 1, 'the agent answers again');
    await next(reader, count, (r) => r.raw.type === 'result');
    assert.equal(replyText(reader.records.slice(count)), 'Echo: and now?');
    reader.close();
  });

  it('takes once: of two operators at once, one holds it and the other hears "already taken"', async () => {
    const visitor = await visitorWithConversation();
    visitor.reader.close();
    await asks(server, visitor.token, visitor.conversationId);
    const [alex, sam] = await Promise.all([operator('Alex'), operator('Sam')]);
    const answers = await Promise.all([
      hold(server, alex.token, visitor.conversationId, 'take'),
      hold(server, sam.token, visitor.conversationId, 'take'),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    assert.deepEqual(refused.body, { detail: 'another person has already taken this conversation' });
    const history = await server.api(`/conversations/${visitor.conversationId}/history`, { token: visitor.token });
    assert.equal(kinds(history.body.entries).filter((k) => k === 'operator_joined').length, 1);
    // Its holder taking it again is answered as before; the other cannot release, close or write.
    const holder = answers[0]!.status === 200 ? alex : sam;
    const other = holder === alex ? sam : alex;
    assert.equal((await hold(server, holder.token, visitor.conversationId, 'take')).status, 200);
    for (const action of ['release', 'close'] as const) {
      const res = await hold(server, other.token, visitor.conversationId, action);
      assert.deepEqual([res.status, res.body], [409, { detail: 'you do not hold this conversation' }]);
    }
    const forged = await server.api(`/operators/conversations/${visitor.conversationId}/messages`, {
      method: 'POST',
      token: other.token,
      json: { message: 'I am Alex, honest' },
    });
    assert.deepEqual([forged.status, forged.body], [409, { detail: 'you do not hold this conversation' }]);
    const closed = await hold(server, holder.token, visitor.conversationId, 'close');
    assert.equal(closed.status, 200);
    const left = (await server.api(`/conversations/${visitor.conversationId}/history`, { token: visitor.token })).body;
    assert.deepEqual(left.entries.at(-1).raw, {
      type: 'operator_left',
      operator: { id: holder.id, name: holder === alex ? 'Alex' : 'Sam', avatarUrl: 'https://example.com/alex.png' },
      action: 'closed',
    });
    const notWaiting = await hold(server, other.token, visitor.conversationId, 'take');
    assert.deepEqual(
      [notWaiting.status, notWaiting.body],
      [409, { detail: 'this conversation is not waiting for a person' }],
    );
  });

  it('the demo agent hands off with /human; the queue stream hears it and the take', async () => {
    const alex = await operator('Alex');
    const queue = await openSse(`${server.url}/api/v2/operators/queue/stream`, { token: alex.token });
    const queues = () => queuesTold(queue);
    await queue.waitFor(() => queues().length > 0);
    const visitor = await visitorWithConversation('acme', 'agent_demo');
    let count = visitor.reader.records.length;
    await send(server, visitor.token, { message: '/human my parcel is lost', conversationId: visitor.conversationId });
    const requested = await next(visitor.reader, count, (r) => r.raw.type === 'handoff_requested');
    assert.deepEqual(requested.raw, {
      type: 'handoff_requested',
      by: 'agent',
      reason: 'my parcel is lost',
      agentId: 'agent_demo',
    });
    await queue.waitFor(() =>
      queues().some((q) =>
        q.waiting.some((e) => e.conversationId === visitor.conversationId && e.requestedBy === 'agent'),
      ),
    );
    await hold(server, alex.token, visitor.conversationId, 'take');
    await queue.waitFor(() =>
      queues().some(
        (q) =>
          q.mine.some((e) => e.conversationId === visitor.conversationId) &&
          !q.waiting.some((e) => e.conversationId === visitor.conversationId),
      ),
    );
    // The agent is quiet while the person holds it.
    count = visitor.reader.records.length;
    const held = await send(server, visitor.token, { message: '/help', conversationId: visitor.conversationId });
    assert.deepEqual(held.results, []);
    // Regenerating the agent's reply is refused while a person holds it.
    const regenerate = await server.api(`/conversations/${visitor.conversationId}/regenerate`, {
      method: 'POST',
      token: visitor.token,
      json: {},
    });
    assert.equal(regenerate.status, 409, JSON.stringify(regenerate.body));
    assert.equal(regenerate.body.detail, 'a person is answering in this conversation: the agents do not answer now');
    await next(visitor.reader, count, (r) => r.raw.type === 'result');
    assert.equal(replyText(visitor.reader.records.slice(count)), '');
    queue.close();
    visitor.reader.close();
  });

  it('the model agent calls handoff; after the person releases it, the model reads what the person wrote', async () => {
    const call = (name: string, args: unknown) => ({ name, arguments: pieces(JSON.stringify(args), 3) });
    model.script({ text: 'Let me find you a person.', toolCalls: [call('handoff', { reason: 'refund' })] });
    const before = model.requests.length;
    const visitor = await visitorWithConversation('acme', 'agent_ada');
    const asked = model.requests[before]!.body;
    const tools = asked.tools!.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(tools.includes('handoff'), `offered where the workspace has operators: ${tools}`);
    const requested = await next(visitor.reader, 0, (r) => r.raw.type === 'handoff_requested');
    assert.deepEqual(requested.raw, { type: 'handoff_requested', by: 'agent', reason: 'refund', agentId: 'agent_ada' });
    assert.equal(model.requests.length, before + 1, 'the call ended the turn');

    const alex = await operator('Alex');
    await hold(server, alex.token, visitor.conversationId, 'take');
    const said = await server.api(`/operators/conversations/${visitor.conversationId}/messages`, {
      method: 'POST',
      token: alex.token,
      json: { message: 'Your refund of order 42 is done.' },
    });
    assert.equal(said.status, 200);
    await hold(server, alex.token, visitor.conversationId, 'release');
    model.script({ text: 'Glad Alex sorted out order 42.' });
    const count = visitor.reader.records.length;
    await send(server, visitor.token, { message: 'thanks!', conversationId: visitor.conversationId });
    await next(visitor.reader, count, (r) => r.raw.type === 'result');
    assert.equal(replyText(visitor.reader.records.slice(count)), 'Glad Alex sorted out order 42.');
    const read = model.requests.at(-1)!.body.messages.map((m: { content: unknown }) => m.content);
    assert.ok(
      read.includes('Alex (a person from the team) wrote:\nYour refund of order 42 is done.'),
      JSON.stringify(read),
    );
    assert.ok(read.includes('(Alex gave the conversation back to you; you answer again.)'));
    assert.equal(read.at(-1), 'thanks!');
    visitor.reader.close();
  });

  it("a person taking the conversation stops the agent's running reply; both then write at once", async () => {
    const visitor = await sessionToken(server, 'acme', KEYS.acme);
    const before = model.requests.length;
    // The model answers with a few words, then nothing more: the agent's reply is still running.
    model.script({ text: 'Let me see', stall: true });
    const sent = await send(server, visitor.token, { message: 'where is my parcel?', targetAgentIds: ['agent_ada'] });
    const { conversationId } = sent;
    const reader = await openSse(streamUrl(server, conversationId, sent.userEventId), { token: visitor.token });
    await model.request(before + 1);
    assert.equal((await asks(server, visitor.token, conversationId, 'too slow')).status, 200);

    const alex = await operator('Alex');
    const taken = await hold(server, alex.token, conversationId, 'take');
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    // The take ends the reply: the agent says nothing more while the person holds it.
    const ended = await next(reader, 0, (r) => r.raw.type === 'result');
    assert.equal(ended?.raw.type === 'result' && ended.raw.subtype, 'interrupted', 'the reply stopped by the take');
    assert.equal(await model.requests[before]!.closed, true, "the model's answer is no longer read");

    const said = await server.api(`/operators/conversations/${conversationId}/messages`, {
      method: 'POST',
      token: alex.token,
      json: { message: 'Alex here: it is on its way.' },
    });
    assert.equal(said.status, 200, JSON.stringify(said.body));
    const count = reader.records.length;
    const answer = await send(server, visitor.token, { message: 'thank you, Alex', conversationId });
    assert.deepEqual(answer.results, [], 'the message is for the person: no agent answers');
    await next(reader, count, (r) => r.raw.type === 'result');
    assert.equal(model.requests.length, before + 1, 'the model was not asked again');
    reader.close();
  });

  it('nobody there: the wait ends, the agent offers the contact card, and the queue shows what was left', async () => {
    const visitor = await visitorWithConversation('hooli', 'agent_hooli');
    const sam = await operator('Sam', 'hooli');
    await asks(server, visitor.token, visitor.conversationId, 'refund');
    const count = visitor.reader.records.length;
    const unanswered = await next(visitor.reader, count, (r) => r.raw.type === 'handoff_unanswered');
    assert.deepEqual(unanswered.raw, { type: 'handoff_unanswered', waitedSeconds: 1 });
    await next(visitor.reader, count, (r) => r.raw.type === 'result');
    const turn = visitor.reader.records.slice(count);
    assert.equal(replyText(turn), NOBODY_THERE);
    const card = turn
      .flatMap((r) => (r.raw.type === 'assistant' ? r.raw.message.content : []))
      .find((b) => b.type === 'tool_use');
    assert.equal(card?.type === 'tool_use' && card.name, 'collect_info');
    const late = await hold(server, sam.token, visitor.conversationId, 'take');
    assert.deepEqual([late.status, late.body], [409, { detail: 'this conversation is not waiting for a person' }]);
    // Sam's open inbox follows the queue: what the visitor leaves reaches it live.
    const stream = await openSse(`${server.url}/api/v2/operators/queue/stream`, { token: sam.token });
    const told = () => queuesTold(stream).map((q) => q.missed.find((m) => m.conversationId === visitor.conversationId));
    await stream.waitFor(() => told().length > 0);
    assert.equal(told()[0]?.contact, null, 'missed, nothing left yet');

    await send(server, visitor.token, {
      conversationId: visitor.conversationId,
      message: 'My details',
      toolAction: true,
      metadata: {
        infoCollect: {
          action: 'submit',
          toolUseId: card?.type === 'tool_use' ? card.id : undefined,
          values: { name: 'Kim', email: 'kim@example.com' },
        },
      },
    });
    const missed = (await queueOf(sam.token)).missed.find((e) => e.conversationId === visitor.conversationId);
    assert.deepEqual(missed?.contact, { name: 'Kim', email: 'kim@example.com' });
    await stream.waitFor(() => told().at(-1)?.contact != null);
    assert.deepEqual(told().at(-1)?.contact, { name: 'Kim', email: 'kim@example.com' });
    stream.close();
    visitor.reader.close();
  });

  it('deleting a conversation under handoff takes its handoff with it', async () => {
    const visitor = await visitorWithConversation();
    visitor.reader.close();
    const alex = await operator('Alex');
    await asks(server, visitor.token, visitor.conversationId);
    await hold(server, alex.token, visitor.conversationId, 'take');
    const stream = await openSse(`${server.url}/api/v2/operators/queue/stream`, { token: alex.token });
    const holds = () => queuesTold(stream).map((q) => q.mine.some((m) => m.conversationId === visitor.conversationId));
    await stream.waitFor(() => holds().length > 0);
    assert.deepEqual(holds(), [true]);
    const deleted = await server.api(`/conversations/${visitor.conversationId}`, {
      method: 'DELETE',
      token: visitor.token,
    });
    assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
    // The operator's live queue drops it.
    await stream.waitFor(() => holds().at(-1) === false);
    stream.close();
    const rows = await server.ctx.db.all('SELECT * FROM handoffs WHERE conversation_id = ?', visitor.conversationId);
    assert.deepEqual(rows, []);
    const queue = await queueOf(alex.token);
    assert.ok(!queue.mine.some((e) => e.conversationId === visitor.conversationId));
    for (const res of [
      await hold(server, alex.token, visitor.conversationId, 'release'),
      await server.api(`/operators/conversations/${visitor.conversationId}/history`, { token: alex.token }),
    ]) {
      assert.deepEqual([res.status, res.body], [404, { detail: 'conversation not found' }]);
    }
  });
});

describe('hostile callers', () => {
  it('a visitor, a key or an owner cannot use the operators routes; an operator cannot act as a visitor', async () => {
    const visitor = await visitorWithConversation();
    visitor.reader.close();
    for (const token of [visitor.token, 'sk_acme_1', 'pk_alice', 'lt_acme_owner']) {
      const res = await server.api(`/operators/conversations/${visitor.conversationId}/take`, {
        method: 'POST',
        token,
        json: {},
      });
      assert.deepEqual([res.status, res.body], [401, { detail: 'operator session token required' }], token);
    }
    const noToken = await server.api('/operators/queue');
    assert.deepEqual([noToken.status, noToken.body], [401, { detail: 'invalid Bearer token' }]);
    const alex = await operator('Alex');
    const asVisitor = await server.api('/conversations/send', {
      method: 'POST',
      token: alex.token,
      json: { message: 'hi', conversationId: visitor.conversationId },
    });
    assert.deepEqual(
      [asVisitor.status, asVisitor.body],
      [401, { detail: 'session token or personal API key required' }],
    );
    const administer = await server.api('/workspaces/acme/operators/sessions', {
      method: 'POST',
      token: alex.token,
      json: { operator_ref: 'me-again', display_name: 'Boss' },
    });
    assert.equal(administer.status, 403);
  });

  it('an operator of another workspace sees nothing of it', async () => {
    const visitor = await visitorWithConversation();
    visitor.reader.close();
    await asks(server, visitor.token, visitor.conversationId);
    const stranger = await operator('Mallory', 'hooli');
    const queue = await queueOf(stranger.token);
    assert.ok(!queue.waiting.some((e) => e.conversationId === visitor.conversationId));
    for (const res of [
      await hold(server, stranger.token, visitor.conversationId, 'take'),
      await server.api(`/operators/conversations/${visitor.conversationId}/history`, { token: stranger.token }),
      await server.api(`/operators/conversations/${visitor.conversationId}/messages`, {
        method: 'POST',
        token: stranger.token,
        json: { message: 'hi' },
      }),
      await server.api(`/operators/conversations/${visitor.conversationId}/stream`, { token: stranger.token }),
    ]) {
      assert.deepEqual([res.status, res.body], [404, { detail: 'conversation not found' }]);
    }
    const history = await server.api(`/conversations/${visitor.conversationId}/history`, { token: visitor.token });
    assert.equal(history.body.handoff.state, 'waiting', 'still waiting for its own staff');
  });

  it('a visitor of a workspace without operators cannot ask for a person', async () => {
    const visitor = await visitorWithConversation('globex', 'agent_globex');
    visitor.reader.close();
    const res = await asks(server, visitor.token, visitor.conversationId);
    assert.deepEqual([res.status, res.body], [403, { detail: 'this workspace has no operators' }]);
  });
});

describe('two instances on one PostgreSQL database', () => {
  it('of two operators taking at once on two instances, one holds it; the other queue hears it live', async () => {
    const database = await (await testPostgres()).createDatabase();
    const a = await startTestServer({ fixture: HANDOFF_FIXTURE, db: database });
    const b = await startTestServer({ fixture: HANDOFF_FIXTURE, db: database });
    try {
      const visitor = await visitorWithConversation('acme', 'agent_echo', a);
      visitor.reader.close();
      const [alex, sam] = await Promise.all([operator('Alex', 'acme', a), operator('Sam', 'acme', b)]);
      const queueOnB = await openSse(`${b.url}/api/v2/operators/queue/stream`, { token: sam.token });
      const queues = () => queuesTold(queueOnB);
      await queueOnB.waitFor(() => queues().length > 0);
      await asks(a, visitor.token, visitor.conversationId);
      await queueOnB.waitFor(() =>
        queues().some((q) => q.waiting.some((e) => e.conversationId === visitor.conversationId)),
      );
      const answers = await Promise.all([
        hold(a, alex.token, visitor.conversationId, 'take'),
        hold(b, sam.token, visitor.conversationId, 'take'),
      ]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409]);
      await queueOnB.waitFor(
        () =>
          !queues()
            .at(-1)!
            .waiting.some((e) => e.conversationId === visitor.conversationId),
      );
      queueOnB.close();
      const history = await b.api(`/conversations/${visitor.conversationId}/history`, { token: visitor.token });
      assert.equal(kinds(history.body.entries).filter((k) => k === 'operator_joined').length, 1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a conversation deleted on one instance while another's timer waits for a person: the timer ends nothing, logs nothing", async () => {
    const database = await (await testPostgres()).createDatabase();
    const logged: string[] = [];
    const a = await startTestServer({
      fixture: HANDOFF_FIXTURE,
      db: database,
      log: { level: 'info', destination: { write: (line) => logged.push(JSON.parse(line).msg) } },
    });
    const b = await startTestServer({ fixture: HANDOFF_FIXTURE, db: database });
    try {
      const visitor = await visitorWithConversation('hooli', 'agent_hooli', a);
      visitor.reader.close();
      let deletedOnB = () => {};
      const deletion = new Promise<void>((resolve) => {
        deletedOnB = resolve;
      });
      // What a's timer runs at the deadline, held until b has deleted the conversation however slow the machine is.
      const expire = a.ctx.handoffs.expire.bind(a.ctx.handoffs);
      const expired = new Promise<void>((resolve, reject) => {
        a.ctx.handoffs.expire = async (conversationId) => {
          await deletion;
          await expire(conversationId).then(resolve, reject);
        };
      });
      assert.equal((await asks(a, visitor.token, visitor.conversationId)).status, 200);
      const deleted = await b.api(`/conversations/${visitor.conversationId}`, {
        method: 'DELETE',
        token: visitor.token,
      });
      assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
      deletedOnB();
      await expired;
      assert.deepEqual(
        logged.filter((line) => line.includes(visitor.conversationId)),
        [],
        'nothing logged of it',
      );
      for (const table of ['handoffs', 'records', 'turns']) {
        const rows = await a.ctx.db.all(`SELECT 1 FROM ${table} WHERE conversation_id = ?`, visitor.conversationId);
        assert.deepEqual(rows, [], `nothing left in ${table}`);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
