import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { LIMITS } from '../../server/services/limits.js';
import { routesOf } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stderrOf } from '../helpers/stderr.js';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: any;
  responses: Record<string, { description?: string; content?: any; headers?: any }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, any> };
  tags: { name: string; description: string }[];
};

/** `GET /api/v2/x/{id}` and `GET /api/v2/x/:id` alike: parameter names aside, the same route. */
const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{\w+\}|:\w+/g, '{}')}`;

describe('OpenAPI document (GET /api/v2/openapi.json)', () => {
  let server: TestServer;
  let doc: Document;
  before(async () => {
    server = await startTestServer();
    const res = await server.api('/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });
  after(() => server.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: routeKey(method, path), operation })),
    );
  const operation = (method: string, path: string) => doc.paths[`/api/v2${path}`]![method]!;

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, JSON.stringify(result));
    assert.deepEqual(result.warnings, []);
    // The validator does refuse a broken document: a response without its description.
    const broken = structuredClone(doc);
    broken.paths['/api/v2/conversations/send']!.post!.responses = { 200: {} };
    assert.equal((await validate(broken as never)).valid, false);
  });

  it('describes every route the service registered under /api/v2, and nothing else', () => {
    const registered = routesOf(server.app)
      .filter((route) => route.path.startsWith('/api/v2/'))
      .map((route) => routeKey(route.method, route.path));
    assert.ok(registered.length >= 27, `the route table was read: ${registered.join(', ')}`);
    assert.deepEqual(
      operations()
        .map((o) => o.key)
        .sort(),
      registered.sort(),
    );
  });

  it('names the credentials of spec section 5 and what each route takes', () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(Object.keys(schemes).sort(), [
      'operatorToken',
      'ownerLogin',
      'personalKey',
      'sessionToken',
      'workspaceKey',
    ]);
    for (const scheme of Object.values(schemes)) assert.deepEqual([scheme.type, scheme.scheme], ['http', 'bearer']);
    for (const { key, operation } of operations()) assert.ok(operation.security, `${key} says what it takes`);
    assert.deepEqual(operation('get', '/workspaces/whoami').security, [{ workspaceKey: [] }]);
    assert.deepEqual(operation('get', '/workspaces/{slug}/members').security, [
      { workspaceKey: [] },
      { ownerLogin: [] },
    ]);
    assert.deepEqual(operation('post', '/conversations/send').security, [{ sessionToken: [] }, { personalKey: [] }]);
    assert.deepEqual(operation('post', '/workspaces/{slug}/sms/send').security, []);
    // A person of the staff: the operators' routes take an operator's token and nothing else.
    assert.deepEqual(operation('post', '/operators/conversations/{id}/take').security, [{ operatorToken: [] }]);
    assert.deepEqual(operation('post', '/workspaces/{slug}/operators/sessions').security, [{ workspaceKey: [] }]);
  });

  it('documents the { detail } error body on every route', () => {
    assert.deepEqual(doc.components.schemas.Error, {
      type: 'object',
      properties: { detail: { type: 'string' } },
      required: ['detail'],
      description: 'Every error answers with this body.',
    });
    for (const { key, operation } of operations()) {
      assert.deepEqual(
        operation.responses.default?.content,
        { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        key,
      );
    }
  });

  it('comes from the schemas that validate the requests', async () => {
    const grant = operation('post', '/workspaces/{slug}/members/{memberId}/credits') as any;
    const amount = grant.requestBody.content['application/json'].schema.properties.amount;
    // What zod checks (greater than 0), and what its refinements check (whole cents, at most a billion).
    assert.deepEqual(amount, {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1_000_000_000,
      multipleOf: 0.01,
      description: 'Whole cents: at most 2 decimal places.',
    });
    const refused = await server.api('/workspaces/acme/members/u_nobody/credits', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { amount: 0, idempotency_key: 'k' },
    });
    assert.deepEqual([refused.status, refused.body.detail], [400, 'body/amount Number must be greater than 0']);
    const record = doc.components.schemas.ChatStreamRecord;
    assert.deepEqual(record.properties.raw, { $ref: '#/components/schemas/ChatRawEvent' });
  });

  it('says of every operation what it is and does, and of every answer what it means', () => {
    const tags = new Map(doc.tags.map((tag) => [tag.name, tag.description]));
    for (const { key, operation } of operations()) {
      assert.match(operation.operationId ?? '', /^[a-zA-Z]+$/, `${key}: an operation id generators can use`);
      assert.ok(operation.summary && !operation.summary.includes('\n'), `${key}: a one-line summary`);
      assert.ok(operation.description, `${key}: a description`);
      for (const tag of operation.tags ?? []) assert.ok(tags.get(tag), `${key}: its tag ${tag} is described`);
      for (const [status, answer] of Object.entries(operation.responses)) {
        assert.ok(answer.description && answer.description !== 'Default Response', `${key} ${status}`);
      }
    }
  });

  it('lists the refusals of each operation with their detail, as the service words them', () => {
    const grant = operation('post', '/workspaces/{slug}/members/{memberId}/credits');
    const examples = (status: number) => Object.keys(grant.responses[status]!.content['application/json'].examples);
    assert.ok(examples(400).includes('body/amount Number must be greater than 0'));
    assert.deepEqual(examples(402), ['insufficient owner wallet balance']);
    assert.ok(examples(401).includes('workspace API key required'));
    assert.ok(examples(415).includes('Content-Type must be application/json'));
    const sms = operation('post', '/workspaces/{slug}/sms/send');
    assert.equal(sms.responses[429]!.headers['Retry-After'].required, true);
    // Phone, address, workspace, and (issue 26) the share of a number prefix near the cap.
    assert.deepEqual(Object.keys(sms.responses[429]!.content['application/json'].examples).length, 4);
    assert.deepEqual(Object.keys(sms.responses[428]!.content['application/json'].examples), [
      'answer the challenge and ask again with its answer in challenge',
    ]);
  });

  it('states the limits of server/services/limits.ts, the cursor and the flags as the service reads them', () => {
    const send = operation('post', '/conversations/send').requestBody.content['application/json'].schema;
    assert.equal(send.properties.message.maxLength, LIMITS.messageBytes);
    assert.match(send.properties.metadata.description, /at most 32 KB as JSON/);
    assert.equal(send.properties.mcpTokens.maxProperties, LIMITS.mcpTokens);
    const credentials = operation('put', '/profile/credentials/{connectorTypeId}').requestBody.content[
      'application/json'
    ].schema.properties.credentials;
    assert.equal(credentials.minProperties, 1);
    const history = operation('get', '/conversations/{id}/history').parameters!;
    const parameter = (name: string) => history.find((p) => p.name === name)!.schema;
    assert.deepEqual(parameter('includeThinking'), { type: 'boolean', default: false });
    assert.ok(new RegExp(parameter('before').pattern as string).test('e000000000000042'));
    assert.equal(new RegExp(parameter('before').pattern as string).test('42'), false);
    const interrupt = operation('post', '/conversations/{id}/interrupt').requestBody;
    assert.equal(interrupt.required, false, 'a body may be sent and is ignored');
    assert.ok(doc.components.schemas.ContentBlock.discriminator.mapping.tool_result);
  });

  it('describes the record streams as text/event-stream, each event of them, and their headers', () => {
    for (const path of ['/conversations/{id}/stream', '/agents/{id}/messages/stream']) {
      const stream = operation('get', path);
      const answer = stream.responses[200]!;
      assert.deepEqual(Object.keys(answer.content), ['text/event-stream']);
      const events = answer.content['text/event-stream']['x-itemSchema'].oneOf;
      assert.deepEqual(events[0].properties.data, { $ref: '#/components/schemas/ChatStreamRecord' });
      assert.deepEqual(events[1].properties.event, { type: 'string', enum: ['expired'] });
      assert.match(answer.description!, /event: expired/);
      assert.equal(answer.headers['Cache-Control'].schema.const, 'no-cache, no-transform');
      assert.ok(stream.parameters!.some((p) => p.in === 'header' && p.name === 'last-event-id'));
    }
    // Every other answer is for no cache.
    assert.equal(
      operation('post', '/conversations/send').responses[200]!.headers['Cache-Control'].schema.const,
      'no-store',
    );
  });

  it('is rendered at /reference from files the service serves itself', async () => {
    const page = await fetch(`${server.url}/reference/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(
      sources.some((s) => s.endsWith('swagger-ui-bundle.js')),
      html,
    );
    for (const source of sources) assert.doesNotMatch(source, /^(https?:)?\/\//, 'no file comes from elsewhere');
    const bundle = await fetch(new URL(sources.find((s) => s.endsWith('swagger-ui-bundle.js'))!, page.url));
    assert.equal(bundle.status, 200);
    await bundle.arrayBuffer();
    const spec = await fetch(`${server.url}/reference/json`);
    assert.deepEqual(await spec.json(), doc);
  });
});

describe('answers held to their response schemas at run time (checkResponses, on in the Node suites)', () => {
  it('fails an answer that does not fit its schema with a logged 500; without the check it goes out as made', async () => {
    const answers: [number, unknown][] = [];
    const written = await stderrOf(async () => {
      for (const checkResponses of [true, false]) {
        const server = await startTestServer({ checkResponses });
        try {
          const made = { method: 'POST', token: 'sk_acme_1', json: { sp_user_ref: 'odd' } };
          assert.equal((await server.api('/workspaces/acme/members', made)).status, 200);
          // A row no write of the service makes: its `joined_at` is not the date-time the schema says it is.
          await server.ctx.db.run("UPDATE members SET joined_at = 'yesterday' WHERE sp_user_ref = 'odd'");
          const res = await server.api('/workspaces/acme/members', { token: 'sk_acme_1' });
          answers.push([res.status, res.body.detail ?? res.body.members.at(-1).joined_at]);
        } finally {
          await server.close();
        }
      }
    });
    assert.deepEqual(answers, [
      [500, 'internal server error'],
      [200, 'yesterday'],
    ]);
    const line = written.find((l) => l.includes('"msg":"500 GET /api/v2/workspaces/:slug/members"'));
    assert.ok(line, `nothing logged: ${JSON.stringify(written)}`);
    const { err } = JSON.parse(line);
    assert.equal(err.message, "Response doesn't match the schema");
    assert.match(JSON.stringify(err), /joined_at/);
  });
});
