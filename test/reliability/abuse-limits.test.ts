import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clock } from '../../server/store/workspace.js';
import { ApiError, type SvcClient } from '../../src/index.js';
import { adminClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { outbox, sendCode, uniquePhone, uniqueRef } from '../helpers/workspace.js';
import { size } from './soak.js';

/** Identical requests fired at once, as a retrying integration or an attacker would. */
const PARALLEL = size(100, 400);

const inParallel = <T>(count: number, call: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(i)));

/** The status of a client call: 200 when it resolved, else the ApiError's status. */
const statusOf = (call: Promise<unknown>) =>
  call.then(
    () => 200,
    (err: unknown) => {
      if (err instanceof ApiError) return err.status;
      throw err;
    },
  );

describe(`abuse: ${PARALLEL} parallel identical requests and SMS limits`, () => {
  let server: TestServer;
  let admin: SvcClient;
  before(async () => {
    server = await startTestServer();
    admin = adminClient(server);
  });
  after(() => server.close());

  it(`${PARALLEL} identical provisions through the client create exactly one member`, async () => {
    const ref = uniqueRef('parallel');
    const results = await inParallel(PARALLEL, () => admin.workspaces.provisionMember('acme', { sp_user_ref: ref }));
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.equal(new Set(results.map((r) => r.member_id)).size, 1);
    const { members } = await admin.workspaces.listMembers('acme');
    assert.equal(members.filter((m) => m.sp_user_ref === ref).length, 1);
  });

  it(`${PARALLEL} identical grants through the client debit the owner's wallet exactly once`, async () => {
    const { member_id } = await admin.workspaces.provisionMember('acme', { sp_user_ref: uniqueRef('grant') });
    const key = uniqueRef('order');
    const results = await inParallel(PARALLEL, () =>
      admin.workspaces.grantCredits('acme', member_id, { amount: 7, idempotency_key: key }),
    );
    assert.equal(results.filter((r) => !r.idempotent).length, 1);
    assert.equal(new Set(results.map((r) => r.purchase_id)).size, 1);
    assert.ok(results.every((r) => r.balance === 7));
    const { members } = await admin.workspaces.listMembers('acme');
    assert.equal(members.find((m) => m.user_id === member_id)?.balance, 7);
    // The wallet lost 7 once: a grant of everything else still succeeds and one cent more does not.
    const wallet = Math.round((1000 - 7 - grantedBefore(members, member_id)) * 100) / 100;
    const rest = () =>
      admin.workspaces.grantCredits('acme', member_id, { amount: wallet, idempotency_key: uniqueRef() });
    assert.equal(await statusOf(rest()), 200);
    assert.equal(
      await statusOf(admin.workspaces.grantCredits('acme', member_id, { amount: 0.01, idempotency_key: uniqueRef() })),
      402,
    );
  });

  it(`${PARALLEL} parallel code requests for one phone send one SMS; the rest get 429 with Retry-After`, async () => {
    const phone = uniquePhone();
    const results = await inParallel(PARALLEL, () =>
      server.api('/workspaces/acme/sms/send', { method: 'POST', json: { phone } }),
    );
    assert.equal(results.filter((r) => r.status === 204).length, 1);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(refused.length, PARALLEL - 1);
    assert.ok(refused.every((r) => Number(r.headers.get('retry-after')) > 0));
    assert.equal(outbox(server).filter((m) => m.phone === phone).length, 1);
  });

  it('sends at most 5 codes to a phone in 10 minutes however often it is asked', async () => {
    const phone = uniquePhone();
    const realNow = clock.now;
    let skew = 0;
    clock.now = () => realNow() + skew;
    try {
      // One attempt every 10 seconds for 10 minutes: 60 attempts.
      for (let attempt = 0; attempt < 60; attempt++, skew += 10_000) {
        await server.api('/workspaces/acme/sms/send', { method: 'POST', json: { phone } });
      }
    } finally {
      clock.now = realNow;
    }
    assert.equal(outbox(server).filter((m) => m.phone === phone).length, 5);
  });

  it(`${PARALLEL} parallel wrong guesses sign no one in and kill the code`, async () => {
    const { phone, code } = await sendCode(server);
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
    const results = await inParallel(PARALLEL, (i) =>
      server.api('/workspaces/acme/sms/verify', { method: 'POST', json: { phone, code: wrong(i) } }),
    );
    assert.ok(results.every((r) => r.status === 401 && r.body.detail === 'invalid_or_expired_code'));
    // The right code is dead now: guessing more than 5 times gains nothing.
    const right = await server.api('/workspaces/acme/sms/verify', { method: 'POST', json: { phone, code } });
    assert.equal(right.status, 401);
    const { members } = await admin.workspaces.listMembers('acme');
    assert.equal(members.filter((m) => m.sp_user_ref === `sms:${phone}`).length, 0);
  });
});

/** Credits granted to members other than `memberId` by earlier tests of this file. */
function grantedBefore(members: { user_id: string; balance: number }[], memberId: string): number {
  return members.filter((m) => m.user_id !== memberId).reduce((sum, m) => sum + m.balance, 0);
}
