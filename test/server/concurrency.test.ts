import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { provision, sendCode, uniqueRef } from '../helpers/workspace.js';

const PARALLEL = 50;

/**
 * Money and idempotency under parallel requests: each step is one `BEGIN IMMEDIATE` transaction. Every test
 * gets a fresh service, so the globex wallet holds exactly 50.
 */
describe('concurrent requests', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  const inParallel = <T>(count: number, call: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: count }, (_, i) => call(i)));
  const globex = 'sk_globex_1';
  const grant = (memberId: string, amount: number, key: string) =>
    server.api(`/workspaces/globex/members/${memberId}/credits`, {
      method: 'POST',
      token: globex,
      json: { amount, idempotency_key: key },
    });
  const balanceOf = async (memberId: string) => {
    const res = await server.api('/workspaces/globex/members', { token: globex });
    return res.body.members.find((m: any) => m.user_id === memberId).balance;
  };

  it(`${PARALLEL} identical grants with one idempotency_key debit the wallet once and share one purchase_id`, async () => {
    const memberId = await provision(server, uniqueRef(), 'globex', globex);
    const key = uniqueRef('k');
    const results = await inParallel(PARALLEL, () => grant(memberId, 30, key));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(new Set(results.map((r) => r.body.purchase_id)).size, 1);
    assert.equal(results.filter((r) => !r.body.idempotent).length, 1);
    assert.ok(results.every((r) => r.body.balance === 30));
    assert.equal(await balanceOf(memberId), 30);
    // The wallet held 50: exactly 20 must be left.
    assert.equal((await grant(memberId, 20.01, uniqueRef('k'))).status, 402);
    assert.equal((await grant(memberId, 20, uniqueRef('k'))).status, 200);
    assert.equal((await grant(memberId, 0.01, uniqueRef('k'))).status, 402);
    assert.equal(await balanceOf(memberId), 50);
  });

  it(`${PARALLEL} parallel provisions of one sp_user_ref create one member`, async () => {
    const ref = uniqueRef();
    const results = await inParallel(PARALLEL, () =>
      server.api('/workspaces/acme/members', { method: 'POST', token: 'sk_acme_1', json: { sp_user_ref: ref } }),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(results.filter((r) => r.body.created).length, 1);
    assert.equal(new Set(results.map((r) => r.body.member_id)).size, 1);
    const list = await server.api('/workspaces/acme/members', { token: 'sk_acme_1' });
    assert.equal(list.body.members.filter((m: any) => m.sp_user_ref === ref).length, 1);
  });

  it(`${PARALLEL} parallel verifications of one code sign in exactly once`, async () => {
    const { phone, code } = await sendCode(server);
    const results = await inParallel(PARALLEL, () =>
      server.api('/workspaces/acme/sms/verify', { method: 'POST', json: { phone, code } }),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.body.detail === 'invalid_or_expired_code'));
  });

  it('never overdraw the wallet: 60 grants of 1 with distinct keys from a wallet of 50 give 50 successes', async () => {
    const memberId = await provision(server, uniqueRef(), 'globex', globex);
    const results = await inParallel(60, (i) => grant(memberId, 1, `distinct-${i}`));
    const granted = results.filter((r) => r.status === 200);
    assert.equal(granted.length, 50);
    assert.ok(results.every((r) => r.status === 200 || r.body.detail === 'insufficient owner wallet balance'));
    assert.equal(new Set(granted.map((r) => r.body.purchase_id)).size, 50);
    assert.equal(await balanceOf(memberId), 50);
  });
});
