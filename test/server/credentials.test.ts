import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getConnectorCredentials } from '../../server/store/connector-credential-rows.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('connector credentials (PUT /profile/credentials/:connectorTypeId)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** What the service decrypts for a runtime. */
  const decrypted = (userId: string, connectorTypeId: string) =>
    getConnectorCredentials(server.ctx.db, server.ctx.secret, userId, connectorTypeId);
  const put = (connectorTypeId: string, json: unknown, token = 'pk_alice') =>
    server.api(`/profile/credentials/${connectorTypeId}`, { method: 'PUT', token, json });

  it('stores the values encrypted and answers only the field names', async () => {
    const secret = 'ghp_SuperSecretValue123';
    const res = await put('github', { credentials: { token: secret, org: 'acme-inc' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.connectorTypeId, 'github');
    assert.deepEqual(res.body.fields, ['token', 'org']);
    assert.ok(!Number.isNaN(Date.parse(res.body.updatedAt)));
    assert.ok(!JSON.stringify(res.body).includes(secret), 'the answer never echoes a value');

    const row = (await server.ctx.db.get(
      "SELECT * FROM connector_credentials WHERE user_id = 'alice' AND connector_type_id = 'github'",
    )) as Record<string, unknown>;
    const stored = Object.values(row)
      .map((value) => (Buffer.isBuffer(value) ? value.toString('latin1') : String(value)))
      .join('|');
    assert.ok(!stored.includes(secret), 'the secret is not stored in clear');
    assert.ok(!stored.includes('acme-inc'), 'no value is stored in clear');

    assert.deepEqual(await decrypted('alice', 'github'), { token: secret, org: 'acme-inc' });
  });

  it('keeps each user apart and replaces a connector type on a second save', async () => {
    await put('notion', { credentials: { key: 'alice-1' } });
    await put('notion', { credentials: { key: 'bob-1' } }, 'pk_bob');
    const second = await put('notion', { credentials: { key: 'alice-2', workspace: 'w' } });
    assert.deepEqual(second.body.fields, ['key', 'workspace']);
    assert.deepEqual(await decrypted('alice', 'notion'), { key: 'alice-2', workspace: 'w' });
    assert.deepEqual(await decrypted('bob', 'notion'), { key: 'bob-1' });
    assert.equal(await decrypted('bob', 'github'), undefined);
  });

  it('uses a fresh IV for every write, so equal values never look equal', async () => {
    const ciphertext = async () =>
      (
        (await server.ctx.db.get(
          "SELECT iv, ciphertext FROM connector_credentials WHERE user_id = 'alice' AND connector_type_id = 'jira'",
        )) as { iv: Buffer; ciphertext: Buffer }
      ).ciphertext.toString('hex');
    await put('jira', { credentials: { token: 'same' } });
    const first = await ciphertext();
    await put('jira', { credentials: { token: 'same' } });
    assert.notEqual(await ciphertext(), first);
  });

  it('refuses a tampered ciphertext instead of returning garbage', async () => {
    await put('slack', { credentials: { token: 'xoxb-1' } });
    const row = (await server.ctx.db.get(
      "SELECT ciphertext FROM connector_credentials WHERE user_id = 'alice' AND connector_type_id = 'slack'",
    )) as { ciphertext: Buffer };
    await server.ctx.db.run(
      "UPDATE connector_credentials SET ciphertext = ? WHERE user_id = 'alice' AND connector_type_id = 'slack'",
      randomBytes(row.ciphertext.length),
    );
    await assert.rejects(decrypted('alice', 'slack'));
  });

  it('needs a user credential', async () => {
    const none = await server.api('/profile/credentials/github', { method: 'PUT', json: { credentials: { a: 'b' } } });
    assert.deepEqual([none.status, none.body.detail], [401, 'invalid Bearer token']);
    const key = await put('github', { credentials: { a: 'b' } }, 'sk_acme_1');
    assert.deepEqual([key.status, key.body.detail], [401, 'session token or personal API key required']);
  });

  it('validates the connector type and the credentials', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['Bad_Type', { credentials: { a: 'b' } }, /^connectorTypeId must be/],
      ['-leading', { credentials: { a: 'b' } }, /^connectorTypeId must be/],
      ['a'.repeat(65), { credentials: { a: 'b' } }, /^connectorTypeId must be/],
      ['github', {}, /^body\/credentials Required$/],
      ['github', { credentials: {} }, /^body\/credentials must hold at least one non-empty value$/],
      ['github', { credentials: { a: '' } }, /^body\/credentials must hold at least one non-empty value$/],
      ['github', { credentials: { a: 1 } }, /^body\/credentials\/a Expected string, received number$/],
      [
        'github',
        { credentials: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'v'])) },
        /^body\/credentials must hold at most 50 fields$/,
      ],
    ];
    for (const [type, body, detail] of cases) {
      const res = await put(type, body);
      assert.equal(res.status, 400, `${type} ${JSON.stringify(body).slice(0, 60)}`);
      assert.match(res.body.detail, detail);
    }
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, i ? '' : 'v']));
    const ok = await put('a0_-z', { credentials: fifty });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.fields.length, 50);
  });
});
