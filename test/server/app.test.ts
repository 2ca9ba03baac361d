import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('service basics', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers an unknown route with 404 and a detail', async () => {
    const res = await server.api('/nope');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'route not found' });
  });

  it('answers malformed JSON with 400 and a detail, never a 500', async () => {
    const res = await server.api('/workspaces/acme/members', {
      method: 'POST',
      token: 'sk_acme_1',
      headers: { 'content-type': 'application/json' },
      body: '{"sp_user_ref": ',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, 'request body is not valid JSON');
  });

  it('answers a CORS preflight for any route', async () => {
    const res = await fetch(`${server.url}/api/v2/conversations/send`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Last-Event-ID/);
  });

  it('whoami answers with the key of the workspace', async () => {
    const res = await server.api('/workspaces/whoami', { token: 'sk_acme_1' });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'acme');
    assert.equal(res.body.api_key_id, 'key_acme_1');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });
});
