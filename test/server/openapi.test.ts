import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { routesOf } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Operation = { security?: Record<string, string[]>[]; responses: Record<string, { content?: unknown }> };
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, any> };
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
    assert.deepEqual(Object.keys(schemes).sort(), ['ownerLogin', 'personalKey', 'sessionToken', 'workspaceKey']);
    for (const scheme of Object.values(schemes)) assert.deepEqual([scheme.type, scheme.scheme], ['http', 'bearer']);
    for (const { key, operation } of operations()) assert.ok(operation.security, `${key} says what it takes`);
    assert.deepEqual(operation('get', '/workspaces/whoami').security, [{ workspaceKey: [] }]);
    assert.deepEqual(operation('get', '/workspaces/{slug}/members').security, [
      { workspaceKey: [] },
      { ownerLogin: [] },
    ]);
    assert.deepEqual(operation('post', '/conversations/send').security, [{ sessionToken: [] }, { personalKey: [] }]);
    assert.deepEqual(operation('post', '/workspaces/{slug}/sms/send').security, []);
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
    assert.deepEqual(amount, { type: 'number', exclusiveMinimum: 0 });
    const refused = await server.api('/workspaces/acme/members/u_nobody/credits', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { amount: 0, idempotency_key: 'k' },
    });
    assert.deepEqual([refused.status, refused.body.detail], [400, 'body/amount Number must be greater than 0']);
    const record = doc.components.schemas.ChatStreamRecord;
    assert.deepEqual(record.properties.raw, { $ref: '#/components/schemas/ChatRawEvent' });
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
