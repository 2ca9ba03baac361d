import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEMO_FAILURE } from '../../server/runtimes/demo.js';
import { echoRuntime } from '../../server/runtimes/echo.js';
import { MODEL_FAILED } from '../../server/runtimes/model/upstream.js';
import { ReplyFailure, TURN_FAILED } from '../../server/runtimes/types.js';
import { ABANDONED } from '../../server/turns/end-turn.js';
import { LOST_LIVENESS, STOPPED } from '../../server/turns/registry.js';
import type { ResultRawEvent } from '../../src/protocol/types.js';
import { resultOf, sendAndRead } from '../helpers/conversation.js';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * What a visitor may not read in why a reply failed: the sentence is theirs (the widget shows it under the
 * reply); what the operator needs goes to the log.
 */
const UNFIT: [string, RegExp][] = [
  ['a slash command', /(^|\s)\/[a-z]/i],
  ['an id', /\b(agent|owner|key|ws|toolu|[tcmefui])_[A-Za-z0-9]/],
  ['a URL', /[a-z]+:\/\/|www\./i],
  ['a stack', /\n|\bat \S+ \(|:\d+:\d+/],
  ['a setting', /\w_\w|[`{}<>"]/],
  ['a developer word', /\b(undefined|null|NaN|endpoint|base URL|runtime|exception|TypeError|SyntaxError)\b/i],
];

function assertFit(sentence: string): void {
  assert.ok(sentence.trim().length > 0, 'a sentence');
  for (const [what, pattern] of UNFIT) assert.doesNotMatch(sentence, pattern, `“${sentence}” holds ${what}`);
}

/** Every sentence the service can end a turn with; those with a value, with a few. */
const SENTENCES = [
  ...Object.values(TURN_FAILED),
  ...Object.values(ABANDONED),
  LOST_LIVENESS,
  STOPPED,
  DEMO_FAILURE,
  ...Object.values(MODEL_FAILED),
].flatMap((sentence) =>
  typeof sentence === 'string' ? [sentence] : [1_000, 1_500, 90_000, 600_000, 3_600_000].map(sentence),
);

describe('the sentences a failed reply ends with', () => {
  it('are all for a visitor: no command, id, URL, stack, setting or developer word', () => {
    assert.ok(SENTENCES.length > 20);
    for (const sentence of SENTENCES) assertFit(sentence);
  });

  it('are all among those: the service words no failure of a turn in place', () => {
    const server = fileURLToPath(new URL('../../server/', import.meta.url));
    const files = readdirSync(server, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !/^(dist|node_modules)\b/.test(file),
    );
    assert.ok(files.includes(join('turns', 'active-turn.ts')));
    for (const file of files) {
      const source = readFileSync(join(server, file), 'utf8');
      assert.doesNotMatch(source, /new ReplyFailure\(\s*[`'"]/, `${file} words a ReplyFailure in place`);
      assert.doesNotMatch(source, /end\('error', [`'"]/, `${file} words a turn's end in place`);
    }
  });
});

describe('what a visitor reads when a reply fails', () => {
  const lines: string[] = [];
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      fixture: {
        ...FIXTURE,
        workspaces: FIXTURE.workspaces!.map((workspace) =>
          workspace.slug === 'acme'
            ? {
                ...workspace,
                agents: [
                  ...workspace.agents!,
                  { id: 'agent_leaving', name: 'Leaving', runtime: 'echo' },
                  // A runtime this service no longer has (an agent stored by an older version), and a model
                  // agent without a model.
                  { id: 'agent_retired', name: 'Retired', runtime: 'retired-bot' },
                  { id: 'agent_unset', name: 'Unset', runtime: 'model' },
                ],
              }
            : workspace,
        ),
      },
      log: { level: 'info', destination: { write: (line) => lines.push(line) } },
    });
  });
  after(() => server.close());

  /** The log lines written since `from` (an index into `lines`). */
  const logged = (from: number) => lines.slice(from).map((line) => JSON.parse(line) as { level: string; msg: string });

  async function failed(agentId: string, conversationId?: string) {
    const from = lines.length;
    const { records, sent } = await sendAndRead(server, 'pk_alice', {
      message: 'hello',
      ...(conversationId ? { conversationId } : { targetAgentIds: [agentId], newConversation: true }),
    });
    const result = resultOf(records) as ResultRawEvent;
    assert.equal(result.subtype, 'error');
    assertFit(result.error!);
    const log = logged(from).filter((line) => line.msg.includes(`turn ${sent.results[0]!.streamId} failed`));
    assert.equal(log.length, 1, 'one log line says why');
    return { error: result.error, log: log[0]! };
  }

  it('a runtime that throws an error of its own: a plain sentence; the error and its stack go to the log', async (t) => {
    t.mock.method(echoRuntime, 'run', async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'text')");
    });
    const { error, log } = await failed('agent_echo');
    assert.equal(error, TURN_FAILED.unexpected);
    assert.equal(log.level, 'error');
    assert.match(log.msg, /TypeError: Cannot read properties of undefined \(reading 'text'\) \| +at /);
  });

  it('a ReplyFailure is read as it is worded; its cause goes only to the log', async (t) => {
    t.mock.method(echoRuntime, 'run', async () => {
      throw new ReplyFailure('The shop is closed until Monday.', { cause: 'opening hours: closed_until=monday' });
    });
    const { error, log } = await failed('agent_echo');
    assert.equal(error, 'The shop is closed until Monday.');
    assert.equal(log.level, 'info');
    assert.match(log.msg, /failed: The shop is closed until Monday\. \(opening hours: closed_until=monday\)$/);
  });

  it('an agent deleted before its turn: a plain sentence; the log names the agent', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', {
      message: 'hi',
      targetAgentIds: ['agent_leaving'],
      newConversation: true,
    });
    const { conversationId } = sent;
    await server.ctx.db.run('DELETE FROM agents WHERE id = ?', 'agent_leaving');
    const { error, log } = await failed('agent_leaving', conversationId);
    assert.equal(error, TURN_FAILED.agentGone);
    assert.match(log.msg, /agent agent_leaving no longer exists/);
  });

  it('an agent this service cannot run, or a model agent without a model: a plain sentence; the log says why', async () => {
    const retired = await failed('agent_retired');
    assert.equal(retired.error, TURN_FAILED.notSetUp);
    assert.match(retired.log.msg, /agent agent_retired has an unknown runtime "retired-bot"/);
    const unset = await failed('agent_unset');
    assert.equal(unset.error, TURN_FAILED.notSetUp);
    assert.match(unset.log.msg, /agent agent_unset has no model set up: its options need a model and a base_url/);
  });
});
