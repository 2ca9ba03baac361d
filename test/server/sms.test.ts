import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { clock } from '../../server/store/clock.js';
import { E164 } from '../../src/protocol/phone-number.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { codeFor, outbox, sendCode, uniquePhone } from '../helpers/workspace.js';

const INVALID_CODE = { detail: 'invalid_or_expired_code' };
const TOO_MANY = { detail: 'too many codes sent to this phone, try again later' };

/** Moves the clock of the SMS rules forward instead of sleeping. */
let skewMs = 0;
const advance = (ms: number) => {
  skewMs += ms;
};

describe('SMS sign-in (spec 4.1, docs/protocol.md "SMS sign-in")', () => {
  let server: TestServer;
  const realNow = clock.now;
  before(async () => {
    // Every request of this file comes from one address: the limit per address is tested on its own
    // (reliability/abuse-limits), here it would stop the rules per phone from being seen.
    server = await startTestServer({ quotas: { smsPerAddressPerHour: 1000 } });
    clock.now = () => realNow() + skewMs;
  });
  afterEach(() => {
    skewMs = 0;
  });
  after(async () => {
    clock.now = realNow;
    await server.close();
  });

  const send = (phone: string, slug = 'acme') =>
    server.api(`/workspaces/${slug}/sms/send`, { method: 'POST', json: { phone } });
  const verify = (phone: string, code: unknown, slug = 'acme') =>
    server.api(`/workspaces/${slug}/sms/verify`, { method: 'POST', json: { phone, code } });
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const smsMember = async (phone: string) => {
    const res = await server.api('/workspaces/acme/members', { token: 'sk_acme_1' });
    return res.body.members.find((m: any) => m.sp_user_ref === `sms:${phone}`);
  };

  describe('send, then verify', () => {
    it('delivers a 6-digit code to the outbox and answers 204 with no body', async () => {
      const phone = uniquePhone();
      const res = await send(phone);
      assert.deepEqual([res.status, res.body], [204, undefined]);
      const [message] = outbox(server).filter((m) => m.phone === phone);
      assert.ok(message);
      assert.deepEqual(Object.keys(message).sort(), ['at', 'code', 'phone', 'slug']);
      assert.match(message.code, /^\d{6}$/);
      assert.equal(message.slug, 'acme');
      assert.ok(Math.abs(Date.parse(message.at) - Date.now()) < 60_000);
    });

    it('signs the visitor in as the member sms:<phone> with a session token valid for a day', async () => {
      const { phone, code } = await sendCode(server);
      const res = await verify(phone, code);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['expires_at', 'token', 'user_id']);
      assert.match(res.body.token, /^st_[A-Za-z0-9_-]{43}$/);
      const secondsLeft = (Date.parse(res.body.expires_at) - Date.now()) / 1000;
      assert.ok(Math.abs(secondsLeft - 86400) < 60, `${secondsLeft}`);
      const member = await smsMember(phone);
      assert.equal(member.user_id, res.body.user_id);
      assert.equal(member.status, 'active');
    });

    it('gives a session token that the administration routes refuse', async () => {
      const { phone, code } = await sendCode(server);
      const { token } = (await verify(phone, code)).body;
      const whoami = await server.api('/workspaces/whoami', { token });
      assert.deepEqual([whoami.status, whoami.body], [401, { detail: 'invalid Bearer token' }]);
      const list = await server.api('/workspaces/acme/members', { token });
      assert.deepEqual([list.status, list.body], [403, { detail: 'not the owner of this workspace' }]);
    });

    it('signs the same phone in as the same member next time', async () => {
      const first = await sendCode(server);
      const a = await verify(first.phone, first.code);
      advance(31_000);
      const second = await sendCode(server, first.phone);
      const b = await verify(second.phone, second.code);
      assert.equal(b.status, 200);
      assert.equal(b.body.user_id, a.body.user_id);
      assert.notEqual(b.body.token, a.body.token);
    });

    it('refuses a suspended member with 403 member status is suspended', async () => {
      const first = await sendCode(server);
      const { user_id } = (await verify(first.phone, first.code)).body;
      await server.api(`/workspaces/acme/members/${user_id}`, { method: 'DELETE', token: 'sk_acme_1' });
      advance(31_000);
      const second = await sendCode(server, first.phone);
      const res = await verify(second.phone, second.code);
      assert.deepEqual([res.status, res.body], [403, { detail: 'member status is suspended' }]);
    });
  });

  describe('codes', () => {
    it('are single use', async () => {
      const { phone, code } = await sendCode(server);
      assert.equal((await verify(phone, code)).status, 200);
      const again = await verify(phone, code);
      assert.deepEqual([again.status, again.body], [401, INVALID_CODE]);
    });

    it('refuse a wrong code, and the right one still works after it', async () => {
      const { phone, code } = await sendCode(server);
      const res = await verify(phone, wrong(code));
      assert.deepEqual([res.status, res.body], [401, INVALID_CODE]);
      assert.equal((await verify(phone, code)).status, 200);
    });

    it('survive four wrong guesses but die at the fifth', async () => {
      const survivor = await sendCode(server);
      for (let i = 0; i < 4; i++) assert.equal((await verify(survivor.phone, wrong(survivor.code))).status, 401);
      assert.equal((await verify(survivor.phone, survivor.code)).status, 200);

      const victim = await sendCode(server);
      for (let i = 0; i < 5; i++) assert.equal((await verify(victim.phone, wrong(victim.code))).status, 401);
      const res = await verify(victim.phone, victim.code);
      assert.deepEqual([res.status, res.body], [401, INVALID_CODE]);
    });

    it('expire after 5 minutes', async () => {
      const fresh = await sendCode(server);
      advance(5 * 60_000 - 1000);
      assert.equal((await verify(fresh.phone, fresh.code)).status, 200);

      const stale = await sendCode(server);
      advance(5 * 60_000);
      const res = await verify(stale.phone, stale.code);
      assert.deepEqual([res.status, res.body], [401, INVALID_CODE]);
    });

    it('are replaced by a newer code for the same phone', async () => {
      const older = await sendCode(server);
      advance(31_000);
      const newer = await sendCode(server, older.phone);
      // One time in a million the new random code equals the old one; only a different one can be refused.
      if (older.code !== newer.code) {
        const res = await verify(older.phone, older.code);
        assert.deepEqual([res.status, res.body], [401, INVALID_CODE]);
      }
      assert.equal((await verify(newer.phone, newer.code)).status, 200);
    });

    it('belong to their workspace and phone', async () => {
      const { phone, code } = await sendCode(server);
      const otherPhone = await verify(uniquePhone(), code);
      assert.deepEqual([otherPhone.status, otherPhone.body], [401, INVALID_CODE]);
      assert.equal((await verify(phone, code)).status, 200);
    });

    it('are stored hashed, never as sent', async () => {
      const { phone, code } = await sendCode(server);
      const rows = await server.ctx.db.all('SELECT * FROM sms_codes WHERE phone = ?', phone);
      assert.equal(rows.length, 1);
      assert.ok(!JSON.stringify(rows).includes(code));
    });

    it('must be strings', async () => {
      const { phone, code } = await sendCode(server);
      const res = await verify(phone, Number(code));
      assert.deepEqual([res.status, res.body], [400, { detail: 'body/code Expected string, received number' }]);
    });
  });

  describe('send rate limit per phone', () => {
    it('refuses a second code within 30 seconds with 429 and Retry-After, and sends nothing', async () => {
      const { phone } = await sendCode(server);
      advance(10_000);
      const res = await send(phone);
      assert.deepEqual([res.status, res.body], [429, TOO_MANY]);
      assert.equal(res.headers.get('retry-after'), '20');
      assert.equal(outbox(server).filter((m) => m.phone === phone).length, 1);
      advance(20_000);
      assert.equal((await send(phone)).status, 204);
    });

    it('allows 5 codes in 10 minutes, then refuses until the first leaves the window', async () => {
      const phone = uniquePhone();
      for (let i = 0; i < 5; i++) {
        assert.equal((await send(phone)).status, 204);
        advance(60_000);
      }
      // Five minutes after the first send: the sixth must wait another five minutes.
      const res = await send(phone);
      assert.deepEqual([res.status, res.body], [429, TOO_MANY]);
      assert.equal(res.headers.get('retry-after'), '300');
      advance(5 * 60_000);
      assert.equal((await send(phone)).status, 204);
    });

    it('does not hold back other phones', async () => {
      const { phone } = await sendCode(server);
      assert.equal((await send(phone)).status, 429);
      assert.equal((await send(uniquePhone())).status, 204);
    });

    it('keeps the last code usable while sends are refused', async () => {
      const { phone, code } = await sendCode(server);
      assert.equal((await send(phone)).status, 429);
      assert.equal(codeFor(server, phone), code);
      assert.equal((await verify(phone, code)).status, 200);
    });
  });

  describe('refusals of spec 7', () => {
    it('answers 404 workspace not found for an unknown slug, before looking at the phone', async () => {
      for (const phone of [uniquePhone(), 'not a phone']) {
        const res = await send(phone, 'nowhere');
        assert.deepEqual([res.status, res.body], [404, { detail: 'workspace not found' }]);
      }
      const res = await verify(uniquePhone(), '123456', 'nowhere');
      assert.deepEqual([res.status, res.body], [404, { detail: 'workspace not found' }]);
    });

    it('answers 403 public SMS signup disabled where the workspace turned it off', async () => {
      const sent = await send(uniquePhone(), 'globex');
      assert.deepEqual([sent.status, sent.body], [403, { detail: 'public SMS signup disabled' }]);
      const verified = await verify(uniquePhone(), '123456', 'globex');
      assert.deepEqual([verified.status, verified.body], [403, { detail: 'public SMS signup disabled' }]);
    });

    it('checks the phone format before whether sign-up is enabled', async () => {
      const res = await send('12345', 'globex');
      assert.deepEqual([res.status, res.body], [400, { detail: 'the phone number format is wrong' }]);
    });

    const badPhones: [string, unknown][] = [
      ['no leading +', '14155550100'],
      ['a leading 0', '+04155550100'],
      ['7 digits', '+1234567'],
      ['16 digits', '+1234567890123456'],
      ['spaces', '+1 415 555 0100'],
      ['letters', '+1415555CALL'],
      ['a number', 14155550100],
      ['nothing', undefined],
    ];
    for (const [label, phone] of badPhones) {
      it(`answers 400 the phone number format is wrong for ${label}`, async () => {
        for (const route of ['send', 'verify']) {
          const res = await server.api(`/workspaces/acme/sms/${route}`, {
            method: 'POST',
            json: { phone, code: '123456' },
          });
          assert.deepEqual([res.status, res.body], [400, { detail: 'the phone number format is wrong' }]);
        }
      });
    }

    it('accepts the shortest and longest E.164 numbers', async () => {
      for (const phone of ['+12345678', '+123456789012345']) assert.equal((await send(phone)).status, 204);
    });

    it("holds the widget to the service's rule: E164 of the protocol refuses what the service refuses", async () => {
      for (const [label, phone] of badPhones) assert.equal(E164.test(String(phone)), false, label);
      for (const phone of ['+98765432', '+987654321098765', '+8613800000000']) {
        assert.equal(E164.test(phone), true, phone);
        assert.equal((await send(phone)).status, 204, phone);
      }
    });

    it('answers 401 invalid_or_expired_code when no code was ever sent', async () => {
      const res = await verify(uniquePhone(), '123456');
      assert.deepEqual([res.status, res.body], [401, INVALID_CODE]);
    });
  });
});

describe('SMS without an outbox file', () => {
  let server: TestServer;
  const lines: string[] = [];
  before(async () => {
    server = await startTestServer({
      smsOutbox: undefined,
      log: { level: 'info', destination: { write: (line) => lines.push(JSON.parse(line).msg) } },
    });
  });
  after(() => server.close());

  it('prints the code to the log (the development channel) and never the session token', async () => {
    const phone = uniquePhone();
    assert.equal((await server.api('/workspaces/acme/sms/send', { method: 'POST', json: { phone } })).status, 204);
    const line = lines.find((l) => l.includes(phone));
    const code = line?.match(/\b(\d{6})$/)?.[1];
    assert.ok(code, `no code in the log: ${lines.join('\n')}`);
    const res = await server.api('/workspaces/acme/sms/verify', { method: 'POST', json: { phone, code } });
    assert.equal(res.status, 200);
    assert.ok(!lines.some((l) => l.includes(res.body.token)));
  });
});
