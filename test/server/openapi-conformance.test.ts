import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createParser } from 'eventsource-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { setOperators, workspaceBySlug } from '../../server/store/workspace-rows.js';
import type { ChatStreamRecord } from '../../src/protocol/types.js';
import { readTurn, send, sendAndRead, sessionToken } from '../helpers/conversation.js';
import { type ApiInit, api, startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { codeFor, provision, uniquePhone, uniqueRef } from '../helpers/workspace.js';

/*
 * The OpenAPI document, checked by third-party tools against the live service. Stoplight Prism, a validating
 * proxy, stands in front of it while valid and invalid requests on every operation go through: Prism must
 * find nothing wrong in any answer, and in a request exactly when the document refuses it. It runs without
 * `--errors`, so that a request the document refuses still reaches the service and its refusal is checked
 * too; violations are read from its `sl-violations` header. The record streams go through it as well and
 * their events are validated with Ajv against the document's event schema (`x-itemSchema`). Every answer's
 * body is also validated with every object closed (a field the document does not name is an error), and
 * every refusal's `detail` must be one the document lists for its operation and status. Redocly and Spectral
 * lint the document; openapi-typescript's types compile against the client's own. Each detector is shown
 * to fire on a deliberately wrong document, answer or event first.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
/** A cursor before every record: reading after it replays a conversation from its start. */
const FROM_START = 'e000000000000000';

type Json = Record<string, any>;
interface Violation {
  location: string[];
  severity: string;
  message: string;
}
interface Exchange {
  status: number;
  headers: Headers;
  /** Parsed when JSON, else the text (a stream, audio, a file). */
  body: any;
  /** What Prism found wrong in the request, and in the answer. */
  request: Violation[];
  response: Violation[];
}

/** Runs a command to its end; its output, whatever its exit code (the linters exit 1 on what they find). */
function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Prism's validating proxy in front of `upstream`, described by the document at `file`. */
async function startPrism(file: string, upstream: string) {
  const child = spawn(bin('prism'), ['proxy', file, upstream, '--host', '127.0.0.1', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its log is read all along (a full pipe would stall it); the tail is kept for failure messages.
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      log = (log + chunk).slice(-20_000);
      const listening = /Prism is listening on (http:\/\/\S+)/.exec(log);
      if (listening) resolve(listening[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`prism exited with ${code}: ${log}`)));
  });
  return {
    url,
    log: () => log,
    async close() {
      if (child.exitCode !== null) return;
      child.kill();
      await once(child, 'exit');
    },
  };
}
type Prism = Awaited<ReturnType<typeof startPrism>>;

/** The document with every object closed: what zod leaves unsaid (an undeclared field) becomes an error. */
function closed(value: unknown): any {
  if (Array.isArray(value)) return value.map(closed);
  if (!value || typeof value !== 'object') return value;
  const copy: Json = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]));
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

/** The parts of a Server-Sent Events body: comments, and each event with its `data` read as JSON. */
function sseEvents(text: string) {
  const events: Json[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: ({ id, event, data }) =>
      events.push({ ...(id === undefined ? {} : { id }), event, data: JSON.parse(data) }),
    onComment: (comment) => comments.push(comment.trim()),
  });
  parser.feed(text);
  return { events, comments };
}

describe('the OpenAPI document, checked by third-party tools against the live service', () => {
  let server: TestServer;
  let doc: Json;
  let dir: string;
  let prism: Prism;
  /** Prism in front of the same service, with a document that is deliberately wrong about whoami. */
  let wrongPrism: Prism;
  let lints: Promise<{ redocly: Record<string, Json[]>; spectral: Json[] }>;
  let types: Promise<{ code: number; stdout: string; stderr: string }>;
  let ajv: Ajv2020.default;
  /** `<operationId> success` and `<operationId> refusal` of every exchange so far. */
  const exercised = new Set<string>();
  /** The `raw.type`s and content blocks of the records validated in the streams. */
  const kinds = new Set<string>();
  /** Streams the service ends once their reader has been handed the record of this id, as when it stops. */
  const endAfter = new Map<string, string>();

  before(async () => {
    server = await startTestServer();
    const { records } = server.ctx;
    const follow = records.follow;
    records.follow = (conversationId, after, reader) =>
      follow.call(records, conversationId, after, {
        record: (record) => {
          const more = reader.record(record);
          if (endAfter.get(conversationId) !== record.id) return more;
          reader.close();
          return false;
        },
        close: () => reader.close(),
      });
    doc = (await server.api('/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    // Deliberately wrong about whoami: no description and no refusals (what the linters must report), a field
    // its answer never has, and another Cache-Control (what Prism must report).
    const wrong = structuredClone(doc);
    const whoami = wrong.paths['/api/v2/workspaces/whoami'].get;
    delete whoami.description;
    whoami.responses = { 200: whoami.responses[200] };
    const answer = whoami.responses[200];
    answer.content['application/json'].schema.required.push('not_sent');
    answer.headers['Cache-Control'].schema.const = 'public';
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify(wrong));
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');

    lints = (async () => {
      const redocly = (file: string) => run(bin('redocly'), ['lint', file, '--format', 'json'], dir);
      const outputs = await Promise.all([
        redocly('openapi.json'),
        redocly('wrong.json'),
        run(bin('spectral'), ['lint', 'openapi.json', 'wrong.json', '-r', '.spectral.yaml', '-f', 'json'], dir),
      ]);
      const [right, wrong, spectral] = outputs.map(({ stdout }) => JSON.parse(stdout.slice(stdout.search(/[[{]/))));
      return { redocly: { 'openapi.json': right.problems, 'wrong.json': wrong.problems }, spectral };
    })();
    types = (async () => {
      writeFileSync(join(dir, 'openapi-generated.ts'), astToString(await openapiTS(doc as never)));
      const tsconfig = {
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: {
          typeRoots: [join(ROOT, 'node_modules/@types')],
          paths: { 'openapi-generated': [join(dir, 'openapi-generated.ts')] },
        },
        files: [join(ROOT, 'test/server/openapi-client-types.ts')],
        include: [],
        exclude: [],
      };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      return run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
    })();
    // Neither rejects before its test awaits it.
    lints.catch(() => {});
    types.catch(() => {});

    [prism, wrongPrism] = await Promise.all([
      startPrism(join(dir, 'openapi.json'), server.url),
      startPrism(join(dir, 'wrong.json'), server.url),
    ]);
    // Both are CommonJS: `.default` is what their types name (and their `module.exports` carries it too).
    ajv = new Ajv2020.default({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi', components: closed(doc.components) });
  });
  after(async () => {
    await Promise.all([prism?.close(), wrongPrism?.close()]);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, methods]) =>
      Object.entries(methods as Json).map(([method, operation]) => ({ path, method, operation: operation as Json })),
    );
  const operationOf = (id: string) => {
    const found = operations().find(({ operation }) => operation.operationId === id);
    assert.ok(found, `the document has the operation ${id}`);
    return found;
  };

  /** A validator of a part of the document, every object closed. */
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  function validator(schema: Json) {
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(
        JSON.parse(JSON.stringify(closed(schema)).replaceAll('"#/components/', '"openapi#/components/')),
      );
      validators.set(key, validate);
    }
    return validate;
  }
  /** What `schema` finds wrong in `value` (none: []). */
  const problems = (schema: Json, value: unknown) => {
    const validate = validator(schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };

  /** A refusal whose `detail` the document does not list for the operation and status (undefined: it does). */
  function undocumented(operationId: string, status: number, detail: unknown): string | undefined {
    const media = operationOf(operationId).operation.responses[status]?.content?.['application/json'];
    const listed = Object.keys(media?.examples ?? {});
    if (listed.includes(detail as string)) return undefined;
    // zod's validation messages: one of each part of the request is listed as an example of them all.
    const part = /^(body|querystring|params|headers)[/ ]/.exec(String(detail))?.[1];
    if (status === 400 && part && listed.some((known) => known.startsWith(`${part}/`))) return undefined;
    return `${operationId} ${status} ${JSON.stringify(detail)}`;
  }

  /** A request through `via` (Prism), with what Prism found wrong in it and in its answer. */
  async function exchange(path: string, init: ApiInit = {}, via = prism): Promise<Exchange> {
    const { status, headers, body } = await api(via.url, path, init);
    const found = headers.get('sl-violations');
    const violations: Violation[] = found?.startsWith('[')
      ? JSON.parse(found)
      : found
        ? [{ location: ['response'], severity: 'Error', message: found }]
        : [];
    return {
      status,
      headers,
      body,
      request: violations.filter((v) => v.location[0] === 'request'),
      response: violations.filter((v) => v.location[0] !== 'request'),
    };
  }

  /**
   * An answer to a request of operation `operationId`, as `status`: Prism found nothing wrong in the answer, and
   * something in the request exactly when `breaks` (the document refuses it); a refusal's detail is listed,
   * an answer's JSON holds no field the document does not name.
   */
  function verify(operationId: string, label: string, x: Exchange, status: number, breaks = false) {
    assert.equal(x.status, status, `${label} answered ${x.status}: ${JSON.stringify(x.body)?.slice(0, 500)}`);
    assert.deepEqual(x.response, [], `${label}: Prism found the answer wrong`);
    if (breaks) assert.notDeepEqual(x.request, [], `${label}: Prism found nothing wrong in the request`);
    else assert.deepEqual(x.request, [], `${label}: Prism found the request wrong`);
    if (status >= 400) {
      assert.equal(undocumented(operationId, status, x.body?.detail), undefined, `${label}: an unlisted refusal`);
    } else if (x.headers.get('content-type')?.startsWith('application/json')) {
      const { operation } = operationOf(operationId);
      const schema = operation.responses[status].content['application/json'].schema;
      assert.deepEqual(problems(schema, x.body), [], `${label}: the answer holds what the document does not say`);
    }
    exercised.add(`${operationId} ${status >= 400 ? 'refusal' : 'success'}`);
    return x;
  }

  /** One request of operation `operationId` through Prism, verified. */
  const check = async (operationId: string, path: string, init: ApiInit, status: number, breaks = false) =>
    verify(operationId, `${operationId} ${init.method ?? 'GET'} ${path}`, await exchange(path, init), status, breaks);

  /** The events of a record stream that went through Prism, each validated against the document's event schema. */
  function streamEvents(operationId: string, x: Exchange) {
    assert.match(x.headers.get('content-type') ?? '', /^text\/event-stream/);
    const { operation } = operationOf(operationId);
    const itemSchema = operation.responses[200].content['text/event-stream']['x-itemSchema'];
    const { events, comments } = sseEvents(x.body);
    assert.equal(comments[0], 'connected');
    for (const event of events) {
      assert.deepEqual(problems(itemSchema, event), [], `${operationId}: an event the document does not describe`);
      if (event.event !== 'record') continue;
      const record = event.data as ChatStreamRecord;
      assert.equal(event.id, record.id);
      kinds.add(record.raw.type);
      if (record.raw.type === 'assistant') for (const block of record.raw.message.content) kinds.add(block.type);
    }
    return events;
  }

  /** A record stream through Prism that the service ends, verified, and its events. */
  const checkStream = async (operationId: string, path: string, init: ApiInit) =>
    streamEvents(operationId, await check(operationId, path, init, 200));

  it('is the document of the service itself, with an operation id on every operation', () => {
    assert.equal(doc.openapi, '3.1.0');
    const ids = operations().map(({ operation }) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.length >= 30, ids.join(' '));
  });

  it('workspaces: whoami, members, credits, sessions, agents, the SMS cap', async () => {
    await check('whoami', '/workspaces/whoami', { token: 'sk_acme_1' }, 200);
    await check('whoami', '/workspaces/whoami', { token: 'pk_alice' }, 401);
    await check('whoami', '/workspaces/whoami', {}, 401, true);

    const ref = uniqueRef('oas');
    const members = '/workspaces/acme/members';
    const provisioned = await check('provisionMember', members, post('sk_acme_1', { sp_user_ref: ref }), 200);
    await check('provisionMember', members, post('sk_acme_1', {}), 400, true);
    await check('provisionMember', members, post('sk_globex_1', { sp_user_ref: ref }), 403);
    await check('listMembers', members, { token: 'lt_acme_owner', headers: { 'x-login-type': 'owner' } }, 200);
    await check('listMembers', members, { token: (await sessionToken(server)).token }, 403);

    const credits = `${members}/${provisioned.body.member_id}/credits`;
    const grant = (amount: unknown, key = 'oas-grant') => post('lt_acme_owner', { amount, idempotency_key: key });
    await check('grantCredits', credits, grant(12.5), 200);
    assert.equal((await check('grantCredits', credits, grant(12.5), 200)).body.idempotent, true);
    await check('grantCredits', credits, grant(20), 409);
    await check('grantCredits', credits, grant(0), 400, true);
    await check('grantCredits', credits, grant(0.001), 400, true);
    await check('grantCredits', credits, grant('ten'), 400, true);
    await check('grantCredits', credits, grant(5000, 'oas-too-much'), 402);
    await check('grantCredits', `${members}/u_nobody/credits`, grant(1, 'oas-nobody'), 404);

    const sessions = '/workspaces/acme/sessions';
    await check('mintSession', sessions, post('sk_acme_1', { sp_user_ref: ref, ttl_seconds: 600 }), 200);
    await check('mintSession', sessions, post('sk_acme_1', { sp_user_ref: ref, ttl_seconds: 86401 }), 400, true);
    await check('mintSession', sessions, post('sk_acme_1', { sp_user_ref: uniqueRef('nobody') }), 404);
    const suspended = uniqueRef('oas');
    const suspendedId = await provision(server, suspended);
    await check('suspendMember', `${members}/${suspendedId}`, { method: 'DELETE', token: 'sk_acme_1' }, 204);
    await check('suspendMember', `${members}/${suspendedId}`, { method: 'DELETE', token: 'sk_acme_1' }, 404);
    await check('mintSession', sessions, post('sk_acme_1', { sp_user_ref: suspended }), 403);

    await check('listAgents', '/workspaces/acme/agents', { token: 'sk_acme_1' }, 200);
    await check('listAgents', '/workspaces/acme/agents', { token: 'pk_alice' }, 401);
    await check('getAgent', '/workspaces/acme/agents/agent_echo', { token: 'lt_acme_owner' }, 200);
    await check('getAgent', '/workspaces/acme/agents/agent_nobody', { token: 'sk_acme_1' }, 404);

    const limit = '/workspaces/acme/sms/limit';
    await check('getSmsLimit', limit, { token: 'sk_acme_1' }, 200);
    await check('getSmsLimit', limit, { token: 'sk_acme_2' }, 403);
    await check('setSmsLimit', limit, { ...post('sk_acme_1', { daily_limit: null }), method: 'PUT' }, 200);
    await check('setSmsLimit', limit, { ...post('sk_acme_1', { daily_limit: -1 }), method: 'PUT' }, 400, true);
  });

  it('SMS sign-in: a code, its limits, a session token', async () => {
    const phone = uniquePhone();
    const send = (slug: string, body: unknown, token?: string) =>
      [`/workspaces/${slug}/sms/send`, { method: 'POST', json: body, token }] as const;
    await check('sendSmsCode', ...send('acme', { phone }), 204);
    const again = await check('sendSmsCode', ...send('acme', { phone }), 429);
    assert.match(again.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    await check('sendSmsCode', ...send('acme', { phone: '12345' }), 400, true);
    await check('sendSmsCode', ...send('acme', { phone: uniquePhone() }, 'sk_acme_1'), 403);
    await check('sendSmsCode', ...send('globex', { phone: uniquePhone() }), 403);
    await check('sendSmsCode', ...send('nowhere', { phone: uniquePhone() }), 404);

    const code = codeFor(server, phone);
    const verify = (body: unknown) => ['/workspaces/acme/sms/verify', { method: 'POST', json: body }] as const;
    await check(
      'verifySmsCode',
      ...verify({ phone, code: String((Number(code) + 1) % 1_000_000).padStart(6, '0') }),
      401,
    );
    await check('verifySmsCode', ...verify({ phone, code: Number(code) }), 400, true);
    await check('verifySmsCode', ...verify({ phone, code }), 200);
  });

  /** A conversation of alice's with the demo agent, holding every kind of record it makes. */
  let demo: { conversationId: string; records: ChatStreamRecord[] };

  it('conversations: send, messages, history, interrupt', async () => {
    const key = randomUUID();
    const first = { message: '/file', targetAgentIds: ['agent_demo'], newConversation: true };
    const sent = await check(
      'send',
      '/conversations/send',
      { ...post('pk_alice', first), headers: idempotent(key) },
      200,
    );
    const { conversationId, userEventId } = sent.body;
    const records = [sent.body.userMessage, ...(await readTurn(server, 'pk_alice', conversationId, userEventId))];
    const changed = { ...first, message: '/tool' };
    await check('send', '/conversations/send', { ...post('pk_alice', changed), headers: idempotent(key) }, 409);
    await check('send', '/conversations/send', post('pk_alice', { message: 5 }), 400, true);
    await check('send', '/conversations/send', post('pk_alice', { message: 'hi', conversationId: 'c_nobody' }), 404);
    await check('send', '/conversations/send', post('sk_acme_1', { message: 'hi' }), 401);
    await check('send', '/conversations/send', { ...post('pk_alice', first), headers: idempotent('a b') }, 400, true);
    // Every kind of record the demo agent makes, and a payment settled on its page.
    for (const message of ['/pay 3', '/tool', '/form', '/image', '/think', '/delegate', '/error']) {
      const turn = await sendAndRead(server, 'pk_alice', { message, conversationId });
      records.push(turn.sent.userMessage!, ...turn.records);
    }
    const gate = records.find((r) => r.raw.type === 'payment_gate');
    assert.ok(gate?.raw.type === 'payment_gate');
    const cancel = await fetch(`${server.url}/pay/${gate.raw.payment.orderId}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    assert.ok(cancel.status < 400, `the order was canceled: ${cancel.status}`);
    const settled = await openSse(
      `${server.url}/api/v2/conversations/${conversationId}/stream?lastEventId=${records.at(-1)!.id}`,
      {
        token: 'pk_alice',
      },
    );
    records.push(...(await settled.waitFor((r) => r.some((x) => x.raw.type === 'payment_gate_resolution'))));
    settled.close();
    demo = { conversationId, records };

    const conversation = `/conversations/${conversationId}`;
    await check('messages', `${conversation}/messages?includeThinking=true`, { token: 'pk_alice' }, 200);
    await check('messages', `${conversation}/messages?includeThinking=yes`, { token: 'pk_alice' }, 400, true);
    await check('messages', '/conversations/c_nobody/messages', { token: 'pk_alice' }, 404);
    await check(
      'history',
      `${conversation}/history?turns=2&maxEntries=50&includeThinking=false`,
      { token: 'pk_alice' },
      200,
    );
    await check('history', `${conversation}/history?before=${records.at(-1)!.id}`, { token: 'pk_alice' }, 200);
    await check('history', `${conversation}/history?before=x`, { token: 'pk_alice' }, 400, true);
    await check('history', `${conversation}/history`, { token: 'pk_bob' }, 404);
    await check('interrupt', `${conversation}/interrupt`, { method: 'POST', token: 'pk_alice' }, 200);
    await check('interrupt', `${conversation}/interrupt`, post('pk_alice', {}), 200);
    await check('interrupt', '/conversations/c_nobody/interrupt', { method: 'POST', token: 'pk_alice' }, 404);
  });

  it('acting on replies: regenerate, edit, feedback and its list', async () => {
    const first = await sendAndRead(server, 'pk_alice', {
      message: 'rate me',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const { conversationId } = first.sent;
    const conversation = `/conversations/${conversationId}`;
    const regenerated = await check('regenerate', `${conversation}/regenerate`, post('pk_alice', {}), 200);
    await readTurn(server, 'pk_alice', conversationId, regenerated.body.userEventId);
    const again = await check('regenerate', `${conversation}/regenerate`, { method: 'POST', token: 'pk_alice' }, 200);
    await readTurn(server, 'pk_alice', conversationId, again.body.userEventId);
    const slow = await sendAndRead(server, 'pk_alice', {
      message: '/slow 0',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const running = `/conversations/${slow.sent.conversationId}`;
    const slowed = await check('edit', `${running}/edit`, post('pk_alice', { message: '/slow 5' }), 200);
    await check('regenerate', `${running}/regenerate`, post('pk_alice', {}), 409);
    await check('interrupt', `${running}/interrupt`, { method: 'POST', token: 'pk_alice' }, 200);
    await readTurn(server, 'pk_alice', slow.sent.conversationId, slowed.body.userEventId);
    await check('regenerate', '/conversations/c_nobody/regenerate', post('pk_alice', {}), 404);
    await check('regenerate', `${conversation}/regenerate`, post('sk_acme_1', {}), 401);
    const fresh = await check(
      'send',
      '/conversations/send',
      post('pk_bob', { message: 'x', targetAgentIds: ['agent_echo'], newConversation: true }),
      200,
    );
    await readTurn(server, 'pk_bob', fresh.body.conversationId, fresh.body.userEventId);
    const edited = await check(
      'edit',
      `/conversations/${fresh.body.conversationId}/edit`,
      post('pk_bob', { message: 'y' }),
      200,
    );
    await readTurn(server, 'pk_bob', fresh.body.conversationId, edited.body.userEventId);
    await check('edit', `${conversation}/edit`, post('pk_alice', { message: '' }), 400);
    await check('edit', `${conversation}/edit`, post('pk_alice', { message: 5 }), 400, true);
    await check('edit', '/conversations/c_nobody/edit', post('pk_alice', { message: 'y' }), 404);

    const messageId = first.sent.results[0]!.msgId;
    const feedback = `${conversation}/messages/${messageId}/feedback`;
    const put = (token: string, json: unknown): ApiInit => ({ method: 'PUT', token, json });
    await check('setFeedback', feedback, put('pk_alice', { rating: 'down', reason: 'too short' }), 200);
    await check('setFeedback', feedback, put('pk_alice', { rating: 'up' }), 200);
    await check('setFeedback', feedback, put('pk_alice', { rating: 'meh' }), 400, true);
    await check('setFeedback', `${conversation}/messages/m_nothing/feedback`, put('pk_alice', { rating: 'up' }), 404);
    await check('setFeedback', feedback, put('pk_bob', { rating: 'up' }), 404);
    await check('conversationFeedback', `${conversation}/feedback`, { token: 'pk_alice' }, 200);
    await check('conversationFeedback', `${conversation}/feedback`, { token: 'pk_bob' }, 404);
    const page = await check('listFeedback', '/workspaces/acme/feedback?limit=1', { token: 'sk_acme_1' }, 200);
    await check(
      'listFeedback',
      '/workspaces/acme/feedback?rating=up&agentId=agent_echo',
      { token: 'lt_acme_owner' },
      200,
    );
    if (page.body.next) {
      await check('listFeedback', `/workspaces/acme/feedback?before=${page.body.next}`, { token: 'sk_acme_1' }, 200);
    }
    await check('listFeedback', '/workspaces/acme/feedback?before=x', { token: 'sk_acme_1' }, 400, true);
    await check('listFeedback', '/workspaces/acme/feedback?limit=500', { token: 'sk_acme_1' }, 400, true);
    await check('listFeedback', '/workspaces/acme/feedback', { token: 'pk_alice' }, 401);
    await check('agentPrompts', '/agents/agent_echo/prompts', { token: 'pk_alice' }, 200);
    await check('agentPrompts', '/agents/agent_nobody/prompts', { token: 'pk_alice' }, 404);
  });

  it('the conversation list: list, rename, delete', async () => {
    const doomed = await sendAndRead(server, 'pk_alice', {
      message: 'bye',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const page = await check('listConversations', '/conversations?limit=1', { token: 'pk_alice' }, 200);
    assert.ok(page.body.nextCursor, 'alice has more than one conversation by now');
    const next = `/conversations?cursor=${encodeURIComponent(page.body.nextCursor)}`;
    await check('listConversations', next, { token: 'pk_alice' }, 200);
    await check('listConversations', '/conversations?cursor=x', { token: 'pk_alice' }, 400, true);
    await check('listConversations', '/conversations?limit=101', { token: 'pk_alice' }, 400, true);
    await check('listConversations', '/conversations', { token: 'sk_acme_1' }, 401);
    const { conversationId } = demo;
    const patch = (json: unknown, token = 'pk_alice'): ApiInit => ({ method: 'PATCH', token, json });
    await check('renameConversation', `/conversations/${conversationId}`, patch({ title: 'Every record' }), 200);
    await check('renameConversation', `/conversations/${conversationId}`, patch({ title: ' ' }), 400);
    await check('renameConversation', `/conversations/${conversationId}`, patch({ title: 5 }), 400, true);
    await check('renameConversation', `/conversations/${conversationId}`, patch({ title: 'x' }, 'pk_bob'), 404);
    const slow = await send(server, 'pk_alice', {
      message: '/slow 5',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const slowPath = `/conversations/${slow.conversationId}`;
    // A reply running in it stops with it (issue 41: it used to be refused with 409).
    await check('deleteConversation', slowPath, { method: 'DELETE', token: 'pk_alice' }, 204);
    const doomedPath = `/conversations/${doomed.sent.conversationId}`;
    await check('deleteConversation', doomedPath, { method: 'DELETE', token: 'pk_bob' }, 404);
    await check('deleteConversation', doomedPath, { method: 'DELETE', token: 'pk_alice' }, 204);
    await check('deleteConversation', doomedPath, { method: 'DELETE', token: 'pk_alice' }, 404);
  });

  it('files, payments, audio and connector credentials', async () => {
    const { conversationId, records } = demo;
    const form = (withFile: boolean) => {
      const data = new FormData();
      if (withFile) data.append('file', new Blob(['hello, conformance'], { type: 'text/plain' }), 'notes.txt');
      data.append('filename', 'notes.txt');
      return { method: 'POST', token: 'pk_alice', body: data };
    };
    const uploaded = await check('upload', '/files/upload', form(true), 200);
    await check('upload', '/files/upload', form(false), 400, true);
    await check('upload', '/files/upload', post('pk_alice', { file: 'x' }), 415, true);
    await check('uploadedFile', new URL(uploaded.body.url).pathname.replace('/api/v2', ''), {}, 200);
    await check('uploadedFile', '/files/f_nobody/notes.txt', {}, 404);

    const attachment = records.find((r) => r.raw.type === 'attachment');
    assert.ok(attachment?.raw.type === 'attachment');
    const file = (route: string, path: string) =>
      `/conversations/${conversationId}/files/${route}?path=${encodeURIComponent(path)}`;
    await check('readConversationFile', file('read', attachment.raw.file.workspacePath), { token: 'pk_alice' }, 200);
    await check('readConversationFile', file('read', '../secret'), { token: 'pk_alice' }, 400);
    await check('readConversationFile', file('read', 'missing.txt'), { token: 'pk_alice' }, 404);
    await check(
      'downloadConversationFile',
      file('download', attachment.raw.file.workspacePath),
      { token: 'pk_alice' },
      200,
    );
    await check('downloadConversationFile', file('download', 'missing.txt'), { token: 'pk_alice' }, 404);

    const gate = records.find((r) => r.raw.type === 'payment_gate');
    assert.ok(gate?.raw.type === 'payment_gate');
    await check('paymentStatus', `/payments/${gate.raw.payment.orderId}/status`, { token: 'pk_alice' }, 200);
    await check('paymentStatus', `/payments/${gate.raw.payment.orderId}/status`, { token: 'pk_bob' }, 404);

    const reply = records.find((r) => r.raw.type === 'assistant');
    assert.ok(reply?.raw.type === 'assistant');
    const audio = `/agents/${reply.raw.agentId}/messages/${reply.raw.message.id}/audio`;
    await check('messageAudio', audio, post('pk_alice', { conversationId }), 200);
    await check(
      'messageAudio',
      `/agents/${reply.raw.agentId}/messages/m_nobody/audio`,
      post('pk_alice', { conversationId }),
      404,
    );
    const wav = await check('messageAudioStream', `${audio}/stream`, post('pk_alice', { conversationId }), 200);
    assert.equal(wav.headers.get('content-type'), 'audio/wav');
    await check('messageAudioStream', `${audio}/stream`, post('pk_alice', {}), 400, true);

    const credentials = (connector: string, body: unknown) =>
      [`/profile/credentials/${connector}`, { ...post('pk_alice', body), method: 'PUT' }] as const;
    await check('submitConnectorCredentials', ...credentials('github', { credentials: { api_key: 'k' } }), 200);
    await check('submitConnectorCredentials', ...credentials('github', { credentials: {} }), 400, true);
    await check('submitConnectorCredentials', ...credentials('Bad!', { credentials: { api_key: 'k' } }), 400, true);
  });

  /** The training conversation of the acme key with the echo agent, after one turn. */
  let training: { conversationId: string; lastId: string };

  it('training: send, history, interrupt', async () => {
    const agent = '/agents/agent_echo';
    await check('trainingSend', `${agent}/dev/send`, post('sk_acme_1', { message: 'hello' }), 200);
    const reader = await openSse(`${server.url}/api/v2${agent}/messages/stream?turns=1`, { token: 'sk_acme_1' });
    const turn = await reader.untilResult();
    reader.close();
    training = { conversationId: turn[0]!.conversationId!, lastId: turn.at(-1)!.id };
    await check('trainingSend', `${agent}/dev/send`, post('sk_acme_1', {}), 400, true);
    await check('trainingSend', '/agents/agent_nobody/dev/send', post('sk_acme_1', { message: 'hi' }), 404);
    await check('trainingMessages', `${agent}/messages/history?turns=1`, { token: 'lt_acme_owner' }, 200);
    await check('trainingMessages', `${agent}/messages/history`, { token: 'pk_alice' }, 401);
    await check('trainingInterrupt', `${agent}/dev/interrupt`, { method: 'POST', token: 'sk_acme_1' }, 200);
    await check('trainingInterrupt', '/agents/agent_nobody/dev/interrupt', { method: 'POST', token: 'sk_acme_1' }, 404);
  });

  it('a person in the conversation: operator sessions, the queue and its stream, take, write, release, close', async () => {
    // acme's staff take conversations over from here on (the fixture's `operators`).
    await setOperators(server.ctx.db, (await workspaceBySlug(server.ctx.db, 'acme'))!.id, {});
    const staff = (ref: string, extra: Json = {}) =>
      post('sk_acme_1', { operator_ref: ref, display_name: ref, ...extra });
    const alex = (await check('mintOperatorSession', '/workspaces/acme/operators/sessions', staff('Alex'), 200)).body;
    const sam = (await server.api('/workspaces/acme/operators/sessions', staff('Sam'))).body;
    await check(
      'mintOperatorSession',
      '/workspaces/globex/operators/sessions',
      { ...staff('Kim'), token: 'sk_globex_1' },
      403,
    );
    const badPicture = staff('Kim', { avatar_url: 'ftp://example.com/kim.png' });
    await check('mintOperatorSession', '/workspaces/acme/operators/sessions', badPicture, 400, true);

    const visitor = await sessionToken(server);
    const { sent } = await sendAndRead(server, visitor.token, {
      message: 'I need a person',
      targetAgentIds: ['agent_echo'],
    });
    const id = sent.conversationId;
    const ask = (reason?: string) => post(visitor.token, reason === undefined ? {} : { reason });
    await check('requestHandoff', `/conversations/${id}/handoff`, ask('charged twice'), 200);
    await check('requestHandoff', '/conversations/c_nobody/handoff', ask(), 404);
    await check('requestHandoff', `/conversations/${id}/handoff`, ask('x'.repeat(501)), 400, true);

    await check('operatorQueue', '/operators/queue', { token: alex.token }, 200);
    await check('operatorQueue', '/operators/queue', { token: visitor.token }, 401);
    const operatorPath = (action: string) => `/operators/conversations/${id}/${action}`;
    await check('takeConversation', operatorPath('take'), post(alex.token, {}), 200);
    await check('takeConversation', operatorPath('take'), post(sam.token, {}), 409);
    const said = await check(
      'operatorMessage',
      operatorPath('messages'),
      post(alex.token, { message: 'Alex here.' }),
      200,
    );
    await check('operatorMessage', operatorPath('messages'), post(sam.token, { message: 'Me too.' }), 409);
    await check('operatorHistory', `${operatorPath('history')}?turns=2`, { token: alex.token }, 200);
    await check('operatorHistory', '/operators/conversations/c_nobody/history', { token: alex.token }, 404);
    endAfter.set(id, said.body.message.id);
    await checkStream('operatorStream', `${operatorPath('stream')}?lastEventId=${FROM_START}`, { token: alex.token });
    for (const kind of ['handoff_requested', 'operator_joined', 'operator_message']) {
      assert.ok(kinds.has(kind), `a ${kind} record was validated`);
    }
    await check('operatorStream', '/operators/conversations/c_nobody/stream', { token: alex.token }, 404);
    await check('releaseConversation', operatorPath('release'), post(alex.token, {}), 200);
    await check('releaseConversation', operatorPath('release'), post(alex.token, {}), 409);
    await server.api(`/conversations/${id}/handoff`, ask());
    await server.api(operatorPath('take'), post(sam.token, {}));
    await check('closeConversation', operatorPath('close'), post(alex.token, {}), 409);
    await check('closeConversation', operatorPath('close'), post(sam.token, {}), 200);

    // The queue's stream ends with `event: expired` when the operator's token expires.
    let events: Json[] | undefined;
    // The token must still hold when the stream opens: a slower machine gets a longer one.
    for (let ttl = 2; !events; ttl *= 2) {
      const short = await server.api('/workspaces/acme/operators/sessions', staff('Alex', { ttl_seconds: ttl }));
      const x = await exchange('/operators/queue/stream', { token: short.body.token });
      if (x.status === 401) continue;
      events = streamEvents('operatorQueueStream', verify('operatorQueueStream', `queue stream of ${ttl} s`, x, 200));
    }
    assert.equal(events[0]!.event, 'queue');
    assert.deepEqual(events.at(-1), { event: 'expired', data: { detail: 'the session token expired' } });
    await check('operatorQueueStream', '/operators/queue/stream', { token: 'sk_acme_1' }, 401);
  });

  it('record streams: text/event-stream of records, ended by the service, or by an expired token', async () => {
    const { conversationId, records } = demo;
    const stream = `/conversations/${conversationId}/stream`;
    endAfter.set(conversationId, records.at(-1)!.id);
    const replayed = await checkStream('stream', `${stream}?lastEventId=${FROM_START}`, { token: 'pk_alice' });
    assert.deepEqual(
      replayed.map((event) => event.data.id),
      records.map((record) => record.id),
    );
    await checkStream('stream', stream, { token: 'pk_alice', headers: { 'last-event-id': records.at(-2)!.id } });
    await check('stream', `${stream}?lastEventId=x`, { token: 'pk_alice' }, 400, true);
    await check('stream', `${stream}?lastEventId=e999999999999999`, { token: 'pk_alice' }, 400);
    await check('stream', '/conversations/c_nobody/stream', { token: 'pk_alice' }, 404);
    for (const kind of ['user', 'agent_status', 'assistant_delta', 'assistant', 'attachment', 'payment_gate']) {
      assert.ok(kinds.has(kind), `a ${kind} record was validated`);
    }
    for (const kind of ['payment_gate_resolution', 'result', 'text', 'thinking', 'tool_use', 'image']) {
      assert.ok(kinds.has(kind), `a ${kind} record was validated`);
    }

    // A visitor's stream ends with `event: expired` when the session token it was opened with expires.
    const visitor = await sessionToken(server);
    const { sent } = await sendAndRead(server, visitor.token, { message: 'before it expires' });
    const { sp_user_ref } = (await server.ctx.db.get(
      'SELECT sp_user_ref FROM members WHERE user_id = ?',
      visitor.userId,
    )) as {
      sp_user_ref: string;
    };
    let events: Json[] | undefined;
    // The token must still hold when the stream opens: a slower machine gets a longer one.
    for (let ttl = 2; !events; ttl *= 2) {
      const short = await server.api('/workspaces/acme/sessions', post('sk_acme_1', { sp_user_ref, ttl_seconds: ttl }));
      const path = `/conversations/${sent.conversationId}/stream?turns=1`;
      const x = await exchange(path, { token: short.body.token });
      if (x.status === 401) continue;
      events = streamEvents('stream', verify('stream', `stream of a token that expires in ${ttl} s`, x, 200));
    }
    assert.deepEqual(events.at(-1), { event: 'expired', data: { detail: 'the session token expired' } });

    endAfter.set(training.conversationId, training.lastId);
    const agent = '/agents/agent_echo/messages/stream';
    const trained = await checkStream('trainingStream', `${agent}?turns=1`, { token: 'sk_acme_1' });
    assert.equal(trained.at(-1)!.data.raw.type, 'result');
    await check('trainingStream', `${agent}?turns=0`, { token: 'sk_acme_1' }, 400, true);
  });

  it('exercised every operation: a success each, and a refusal of each that has one of its own', async () => {
    await check('openapi', '/openapi.json', {}, 200);
    const refusalsOf = (operation: Json) =>
      Object.values(operation.responses as Json).flatMap((answer) =>
        Object.keys(answer.content?.['application/json']?.examples ?? {}),
      );
    const all = operations().map(({ operation }) => new Set(refusalsOf(operation)));
    // What every operation lists (the HTTP parser's refusals) is no refusal of its own.
    const everywhere = new Set([...all[0]!].filter((detail) => all.every((listed) => listed.has(detail))));
    assert.ok(everywhere.has('malformed HTTP request'));
    const missing = operations().flatMap(({ operation }) => {
      const own = refusalsOf(operation).some((detail) => !everywhere.has(detail));
      const id = operation.operationId as string;
      return [`${id} success`, ...(own ? [`${id} refusal`] : [])].filter((want) => !exercised.has(want));
    });
    assert.deepEqual(missing, []);
  });

  it('fires on what is wrong: Prism on an answer, Ajv on an event or an undeclared field, the list on a detail', async () => {
    const x = await exchange('/workspaces/whoami', { token: 'sk_acme_1' }, wrongPrism);
    assert.equal(x.status, 200);
    const found = x.response.map((v) => `${v.location.join('.')} ${v.message}`).join('\n');
    assert.match(found, /not_sent/, `Prism reports the missing field: ${found} ${wrongPrism.log().slice(-2000)}`);
    assert.match(found, /cache-control/i, `Prism reports the header: ${found}`);

    const itemSchema = operationOf('stream').operation.responses[200].content['text/event-stream']['x-itemSchema'];
    const { seq: _, ...withoutSeq } = demo.records[0]!;
    assert.notDeepEqual(problems(itemSchema, { id: withoutSeq.id, event: 'record', data: withoutSeq }), []);
    assert.notDeepEqual(problems(itemSchema, { event: 'ended', data: {} }), []);
    const whoami = operationOf('whoami').operation.responses[200].content['application/json'].schema;
    const answer = (await exchange('/workspaces/whoami', { token: 'sk_acme_1' })).body;
    assert.deepEqual(problems(whoami, answer), []);
    assert.notDeepEqual(problems(whoami, { ...answer, extra: 1 }), []);
    assert.equal(undocumented('whoami', 401, 'invalid Bearer token'), undefined);
    assert.ok(undocumented('whoami', 401, 'made up'));
    assert.ok(undocumented('whoami', 404, 'invalid Bearer token'));
  });

  it('Redocly (recommended) and Spectral (spectral:oas) find nothing in it, and report the broken copy', async () => {
    const { redocly, spectral } = await lints;
    const redoclyOf = (file: string) =>
      redocly[file]!.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    const spectralOf = (file: string) =>
      spectral
        .filter((r) => r.source?.endsWith(file))
        .map((r) => `${r.severity} ${r.code}: ${r.message} at ${r.path.join('.')}`);
    assert.deepEqual(redoclyOf('openapi.json'), []);
    assert.deepEqual(spectralOf('openapi.json'), []);
    assert.ok(
      redoclyOf('wrong.json').some((p) => p.includes('operation-4xx-response')),
      redoclyOf('wrong.json').join('\n'),
    );
    assert.ok(
      spectralOf('wrong.json').some((p) => p.includes('operation-description')),
      spectralOf('wrong.json').join('\n'),
    );
  });

  it("compiles openapi-typescript's types against the client's own (test/server/openapi-client-types.ts)", async () => {
    const { code, stdout, stderr } = await types;
    assert.equal(code, 0, stdout + stderr);
  });
});

const post = (token: string, json: unknown): ApiInit => ({ method: 'POST', token, json });
const idempotent = (key: string) => ({ 'idempotency-key': key });
