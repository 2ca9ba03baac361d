import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Fixture } from '../../server/boot/fixture.js';
import {
  AuthenticationError,
  ConflictError,
  extractOperatorMessage,
  extractText,
  handoffStatusOf,
  NotFoundError,
  OperatorInbox,
  type OperatorQueue,
  PermissionDeniedError,
  SvcClient,
} from '../../src/index.js';
import { adminClient, visitorClient } from '../helpers/client.js';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { uniqueRef } from '../helpers/workspace.js';

/*
 * The client of a person in the conversation against the real service: the site's backend signs an operator in
 * (workspaces.mintOperatorSession), the visitor asks for a person (Conversation.requestHandoff), and an
 * OperatorInbox follows the queue, takes, writes, and gives the conversation back.
 */

const [acme, ...others] = FIXTURE.workspaces!;
/** acme's staff take conversations; globex (as in FIXTURE) has none. */
const WITH_OPERATORS: Fixture = { ...FIXTURE, workspaces: [{ ...acme!, operators: {} }, ...others] };

describe('client: a person in the conversation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ fixture: WITH_OPERATORS });
  });
  after(() => server.close());

  const inboxOf = async (name: string) => {
    const session = await adminClient(server)
      .workspace('acme')
      .mintOperatorSession({ operator_ref: uniqueRef('staff'), display_name: name });
    assert.match(session.token, /^ot_/);
    return new OperatorInbox({ apiKey: session.token, baseUrl: server.url, maxRetries: 0 });
  };

  it('the visitor asks, the inbox hears it live, takes it, writes; the agent answers again after release', async () => {
    const visitor = await visitorClient(server);
    const conversation = visitor.conversation({ targetAgentIds: ['agent_echo'] });
    await conversation.send('hello');
    const inbox = await inboxOf('Alex');
    const controller = new AbortController();
    const queues = inbox.queueStream({ signal: controller.signal });
    const first = await queues.next();
    assert.ok(!first.done);

    const asked = await conversation.requestHandoff('wrong size');
    assert.equal(asked.state, 'waiting');
    let queue: OperatorQueue | undefined;
    for await (queue of queues) if (queue.waiting.some((e) => e.conversationId === conversation.id)) break;
    const entry = queue!.waiting.find((e) => e.conversationId === conversation.id)!;
    assert.equal(entry.reason, 'wrong size');

    const taken = await inbox.take(conversation.id!);
    assert.deepEqual([taken.state, taken.operator?.name], ['human', 'Alex']);
    await assert.rejects(
      (await inboxOf('Sam')).take(conversation.id!),
      (err: unknown) =>
        err instanceof ConflictError && err.message.includes('another person has already taken this conversation'),
    );

    // The visitor's message reaches the operator, not the agent.
    const quiet = await conversation.send('my order is 42');
    assert.equal(quiet.text, '', 'no agent answers while a person holds it');
    assert.deepEqual(quiet.result?.type === 'result' && quiet.result.agentIds, []);
    const said = await inbox.send(conversation.id!, 'Alex here: a new one is on its way.');
    assert.equal(extractOperatorMessage(said.message)?.text, 'Alex here: a new one is on its way.');
    const page = await visitor.chat.history(conversation.id!);
    assert.equal(page.handoff?.state, 'human');
    const person = page.entries.map(extractOperatorMessage).find(Boolean);
    assert.deepEqual([person?.operator.name, person?.text], ['Alex', 'Alex here: a new one is on its way.']);
    const seen = (await inbox.history(conversation.id!)).entries.map(extractText);
    assert.ok(seen.includes('my order is 42'));

    const released = await inbox.release(conversation.id!);
    assert.equal(released.state, 'agent');
    const back = await conversation.send('thanks');
    assert.equal(back.text, 'Echo: thanks');
    controller.abort();
  });

  it('replays a conversation to the operator with its handoff records in order', async () => {
    const visitor = await visitorClient(server);
    const conversation = visitor.conversation({ targetAgentIds: ['agent_echo'] });
    const turn = await conversation.send('hi');
    const inbox = await inboxOf('Alex');
    await conversation.requestHandoff();
    await inbox.take(conversation.id!);
    await inbox.close(conversation.id!);
    const states: string[] = [];
    for await (const record of inbox.stream(conversation.id!, { lastEventId: turn.lastEventId })) {
      const status = handoffStatusOf(record);
      if (status) states.push(status.state);
      if (record.raw.type === 'operator_left') break;
    }
    assert.deepEqual(states, ['waiting', 'human', 'agent']);
  });

  it('refuses as documented: no operators, a visitor token, another conversation', async () => {
    const globexVisitor = new SvcClient({
      apiKey: (
        await adminClient(server, { apiKey: 'sk_globex_1' })
          .workspace('globex')
          .startVisitorSession({ sp_user_ref: uniqueRef('v') })
      ).token,
      baseUrl: server.url,
      maxRetries: 0,
    });
    const conversation = globexVisitor.conversation({ targetAgentIds: ['agent_globex'] });
    await conversation.send('hi');
    await assert.rejects(conversation.requestHandoff(), PermissionDeniedError);
    await assert.rejects(
      adminClient(server).workspace('globex').mintOperatorSession({ operator_ref: 'x', display_name: 'X' }),
      PermissionDeniedError,
    );
    const visitor = await visitorClient(server);
    await assert.rejects(new OperatorInbox(visitor.http).queue(), AuthenticationError);
    await assert.rejects((await inboxOf('Alex')).take(conversation.id!), NotFoundError);
  });
});
