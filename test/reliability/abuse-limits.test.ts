import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_QUOTAS } from '../../server/services/limits.js';
import { clock } from '../../server/store/clock.js';
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

/**
 * A JSON POST to the service from a loopback address of our choosing (127.0.0.2, …): a client at another
 * address, as the service sees it.
 */
function postFrom(server: TestServer, localAddress: string, path: string, json: unknown) {
  const url = new URL(`${server.url}/api/v2${path}`);
  return new Promise<{ status: number; body: any; retryAfter?: string }>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            body: text ? JSON.parse(text) : undefined,
            retryAfter: res.headers['retry-after'],
          }),
        );
      },
    );
    req.on('error', reject);
    req.setHeader('content-type', 'application/json');
    req.end(JSON.stringify(json));
  });
}

describe('SMS pumping and lockout: limits per address, per workspace and per phone', () => {
  let server: TestServer;
  const realNow = clock.now;
  let skew = 0;
  before(async () => {
    server = await startTestServer();
    clock.now = () => realNow() + skew;
  });
  after(async () => {
    clock.now = realNow;
    await server.close();
  });

  const sendFrom = (address: string, phone: string, slug = 'acme') =>
    postFrom(server, address, `/workspaces/${slug}/sms/send`, { phone });

  it(`sends at most ${DEFAULT_QUOTAS.smsPerAddressPerHour} codes an hour to different phones from one address`, async () => {
    const phones = Array.from({ length: 300 }, () => uniquePhone());
    const results = await Promise.all(phones.map((phone) => sendFrom('127.0.0.3', phone)));
    assert.equal(results.filter((r) => r.status === 204).length, DEFAULT_QUOTAS.smsPerAddressPerHour);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(refused.length, 300 - DEFAULT_QUOTAS.smsPerAddressPerHour);
    assert.ok(refused.every((r) => r.body.detail === 'too many codes requested from this address, try again later'));
    assert.ok(refused.every((r) => Number(r.retryAfter) > 0 && Number(r.retryAfter) <= 3600));
    const sent = new Set(outbox(server).map((m) => m.phone));
    assert.equal(phones.filter((p) => sent.has(p)).length, DEFAULT_QUOTAS.smsPerAddressPerHour);
    // Another client is not held back by it.
    assert.equal((await sendFrom('127.0.0.4', uniquePhone())).status, 204);
  });

  it('keeps a phone’s owner from a fresh code for 30 seconds at most, whatever strangers do', async () => {
    const phone = uniquePhone();
    const owner = '127.0.0.5';
    const latestCode = () =>
      outbox(server)
        .filter((m) => m.phone === phone)
        .at(-1)!.code;
    // For 10 minutes, strangers at two addresses ask for codes to the victim's phone as fast as they are let
    // and kill every code with five wrong guesses; every 2½ minutes the phone's owner wants to sign in.
    const waits: number[] = [];
    for (let t = 0; t < 600; t += 10, skew += 10_000) {
      await sendFrom(t % 20 ? '127.0.0.6' : '127.0.0.7', phone);
      for (let i = 0; i < 5; i++) {
        await postFrom(server, '127.0.0.6', '/workspaces/acme/sms/verify', { phone, code: '000000' });
      }
      if (t % 150 !== 0) continue;
      let asked = await sendFrom(owner, phone);
      if (asked.status === 429) {
        assert.equal(asked.body.detail, 'too many codes sent to this phone, try again later');
        waits.push(Number(asked.retryAfter));
        skew += Number(asked.retryAfter) * 1000;
        asked = await sendFrom(owner, phone);
      }
      assert.equal(asked.status, 204, JSON.stringify(asked.body));
      const signedIn = await postFrom(server, owner, '/workspaces/acme/sms/verify', { phone, code: latestCode() });
      assert.equal(signedIn.status, 200);
    }
    assert.ok(waits.length > 0, 'the strangers held the phone at least once (positive control)');
    assert.ok(Math.max(...waits) <= 30, `the owner was told to wait ${Math.max(...waits)} s`);
  });

  it('stops at the daily cap its owner sets for the workspace, and at 0 sends none', async () => {
    const admin = adminClient(server);
    const owner = adminClient(server, { apiKey: 'lt_acme_owner' });
    const initial = await admin.workspace('acme').smsLimit();
    assert.deepEqual([initial.daily_limit, initial.custom], [DEFAULT_QUOTAS.smsPerWorkspacePerDay, false]);
    const { sent_last_24h } = await owner.workspace('acme').setSmsLimit({ daily_limit: 0 });
    const none = await sendFrom('127.0.0.8', uniquePhone());
    assert.deepEqual(
      [none.status, none.body],
      [429, { detail: 'this workspace has sent its daily number of SMS codes, try again later' }],
    );
    const set = await owner.workspace('acme').setSmsLimit({ daily_limit: sent_last_24h + 2 });
    assert.deepEqual(set, { daily_limit: sent_last_24h + 2, custom: true, sent_last_24h });
    const results = [];
    for (const address of ['127.0.0.8', '127.0.0.9', '127.0.0.10'])
      results.push(await sendFrom(address, uniquePhone()));
    assert.deepEqual(
      results.map((r) => r.status),
      [204, 204, 429],
    );
    // Back to the service's default.
    const reset = await owner.workspace('acme').setSmsLimit({ daily_limit: null });
    assert.deepEqual([reset.daily_limit, reset.custom], [DEFAULT_QUOTAS.smsPerWorkspacePerDay, false]);
    assert.equal((await sendFrom('127.0.0.11', uniquePhone())).status, 204);
    // Another workspace's key cannot change it.
    await assert.rejects(
      adminClient(server).workspace('globex').setSmsLimit({ daily_limit: 5 }),
      (err: ApiError) => err.status === 403,
    );
  });
});

/** Credits granted to members other than `memberId` by earlier tests of this file. */
function grantedBefore(members: { user_id: string; balance: number }[], memberId: string): number {
  return members.filter((m) => m.user_id !== memberId).reduce((sum, m) => sum + m.balance, 0);
}

describe('SMS sign-in against strangers: a burst from many addresses leaves a new visitor able to sign in', () => {
  /** The workspace's daily cap in these tests: its shares are 20 codes to new numbers before they apply, then
   * 1 per address and 4 per prefix a day, and 8 more for numbers that signed in before. */
  const CAP = 40;
  /** Addresses of the burst: 127.0.<block>.<1…n>, each asking codes for two new numbers. */
  const ADDRESSES = size(60, 200);
  let phones = 0;
  /** A new number of its own prefix (`+` and 5 digits), unless one is given. */
  const newPhone = (prefix = `+${31000 + ++phones}`) => `${prefix}${String(++phones).padStart(6, '0')}`;
  const sentTo = (server: TestServer, phone: string) => outbox(server).filter((m) => m.phone === phone);
  const realNow = clock.now;
  /** Moves the service's clock on (the limits per phone are about time). */
  const later = (ms: number) => {
    const now = clock.now;
    clock.now = () => now() + ms;
  };
  after(() => {
    clock.now = realNow;
  });

  async function workspaceWithCap(challenge?: (answer: string) => boolean) {
    const server = await startTestServer({
      smsChallenge: challenge && { verify: async (answer) => challenge(answer) },
    });
    await adminClient(server, { apiKey: 'lt_acme_owner' }).workspace('acme').setSmsLimit({ daily_limit: CAP });
    const send = (address: string, phone: string, challenge?: string) =>
      postFrom(server, address, '/workspaces/acme/sms/send', { phone, ...(challenge ? { challenge } : {}) });
    const signIn = async (address: string, phone: string) => {
      const code = sentTo(server, phone).at(-1)?.code;
      return (await postFrom(server, address, '/workspaces/acme/sms/verify', { phone, code: code ?? '' })).status;
    };
    return { server, send, signIn };
  }

  /** Each address of the burst asks for two new numbers, all at once. */
  const burst = (
    send: (address: string, phone: string) => Promise<{ status: number; body: any }>,
    phone: () => string,
  ) =>
    Promise.all(
      Array.from({ length: ADDRESSES }, (_, i) => `127.0.${2 + Math.floor(i / 250)}.${1 + (i % 250)}`).flatMap(
        (address) => [send(address, phone()), send(address, phone())],
      ),
    );

  it('with the operator’s challenge: strangers spend at most half the cap, the visitor who answers it signs in', async () => {
    const { server, send, signIn } = await workspaceWithCap((answer) => answer === 'solved');
    try {
      const regular = newPhone();
      assert.equal((await send('127.0.1.1', regular)).status, 204);
      assert.equal(await signIn('127.0.1.1', regular), 200);

      const results = await burst(send, () => newPhone());
      const sent = results.filter((r) => r.status === 204).length;
      assert.ok(sent <= CAP / 2, `the burst got ${sent} codes`);
      assert.ok(
        results.some((r) => r.status === 428),
        'past half the cap, strangers were asked to answer the challenge',
      );

      const visitor = newPhone();
      const unanswered = await send('127.0.9.1', visitor);
      assert.deepEqual(
        [unanswered.status, unanswered.body],
        [428, { detail: 'answer the challenge and ask again with its answer in challenge' }],
      );
      assert.equal((await send('127.0.9.1', visitor, 'wrong')).status, 428, 'a wrong answer does not pass');
      assert.equal((await send('127.0.9.1', visitor, 'solved')).status, 204);
      assert.equal(await signIn('127.0.9.1', visitor), 200, 'the new visitor signs in');

      // The number that signed in before needs no challenge (once its 30 seconds between codes are over).
      later(31_000);
      assert.equal((await send('127.0.1.1', regular)).status, 204);
      assert.equal(await signIn('127.0.1.1', regular), 200);
      assert.ok(outbox(server).length <= CAP + CAP / 5, 'spending stays bounded');
    } finally {
      await server.close();
    }
  });

  it('without a challenge: one prefix gets its share, a visitor of another prefix and a known number sign in', async () => {
    const { server, send, signIn } = await workspaceWithCap();
    try {
      const regular = newPhone();
      assert.equal((await send('127.0.1.1', regular)).status, 204);
      assert.equal(await signIn('127.0.1.1', regular), 200);

      // SMS pumping: many addresses, numbers of one (premium) range.
      const results = await burst(send, () => newPhone('+88216'));
      const sent = results.filter((r) => r.status === 204).length;
      assert.ok(sent <= CAP / 2 + CAP / 10, `the burst got ${sent} codes`);
      assert.ok(
        results.some(
          (r) => r.status === 429 && r.body.detail === 'too many codes sent to numbers like this one, try again later',
        ),
      );

      const visitor = newPhone();
      assert.equal((await send('127.0.9.1', visitor)).status, 204);
      assert.equal(await signIn('127.0.9.1', visitor), 200, 'the new visitor signs in');

      // The rest of the cap goes to strangers at other prefixes, one each per address: then the cap refuses new
      // numbers, and a number that signed in before still gets its code.
      for (let i = 0; i < CAP; i++) await send(`127.0.10.${1 + i}`, newPhone());
      const late = await send('127.0.11.1', newPhone());
      assert.equal(late.status, 429);
      later(31_000);
      assert.equal((await send('127.0.1.1', regular)).status, 204);
      assert.equal(await signIn('127.0.1.1', regular), 200, 'a number that signed in before keeps working');
      assert.ok(outbox(server).length <= CAP + CAP / 5, 'spending stays bounded');
    } finally {
      await server.close();
    }
  });
});
