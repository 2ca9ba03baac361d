import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertPaymentOrder, newPaymentOrder } from '../../server/store/payment-order-rows.js';
import type { ChatStreamRecord, PaymentGatePayload } from '../../src/protocol/record-types.js';
import { readTurn, replyText, resultOf, sendAndRead, streamUrl } from '../helpers/conversation.js';
import { testPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('payments: orders, the local pay page and resolution records', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function entries(conversationId: string): Promise<ChatStreamRecord[]> {
    const res = await server.api(`/conversations/${conversationId}/messages`, { token: 'pk_alice' });
    assert.equal(res.status, 200);
    return res.body.entries;
  }

  /** Asks the demo agent for a payment card (`/pay AMOUNT [SECONDS]`) and returns the card's payment. */
  async function order(args: string): Promise<{ conversationId: string; payment: PaymentGatePayload }> {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: `/pay ${args}`,
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const gate = records.find((r) => r.raw.type === 'payment_gate');
    assert.ok(gate?.raw.type === 'payment_gate', 'a payment card arrived');
    return { conversationId: sent.conversationId, payment: gate.raw.payment };
  }

  async function resolutions(conversationId: string) {
    return (await entries(conversationId))
      .filter((r) => r.raw.type === 'payment_gate_resolution')
      .map((r) => ({ sender: r.sender, event: r.event, raw: r.raw }));
  }

  const status = (orderId: string, token = 'pk_alice') => server.api(`/payments/${orderId}/status`, { token });

  const page = (orderId: string) => fetch(`${server.url}/pay/${orderId}`);

  /** What a browser sends when a Pay or Cancel button is clicked. */
  const click = (orderId: string, action: 'pay' | 'cancel') =>
    fetch(`${server.url}/pay/${orderId}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });

  it('creates a pending order whose payUrl is the local pay page', async () => {
    const { payment } = await order('12.5');
    assert.match(payment.orderId, /^ord_/);
    assert.equal(payment.amountCny, 12.5);
    assert.equal(payment.payUrl, `${server.url}/pay/${payment.orderId}`);
    assert.ok(Date.parse(payment.expiresAt) - Date.now() > 890_000, 'the default expiry is 15 minutes');
    assert.deepEqual((await status(payment.orderId)).body, { status: 'pending', amountCny: 12.5 });

    const res = await fetch(payment.payUrl);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/, 'no script may run on the pay page');
    const html = await res.text();
    assert.match(html, /Demo order/);
    assert.match(html, /CN¥12\.50/);
    assert.match(html, /Awaiting payment/);
    assert.match(html, new RegExp(`<form method="post" action="/pay/${payment.orderId}/pay">`));
    assert.match(html, new RegExp(`<form method="post" action="/pay/${payment.orderId}/cancel">`));
    assert.doesNotMatch(html, /<script|src=|href="http/, 'the page is self-contained');
  });

  it('pays through the page form, then reports paid with exactly one resolution record', async () => {
    const { conversationId, payment } = await order('8');
    const paid = await click(payment.orderId, 'pay');
    assert.equal(paid.status, 303);
    assert.equal(paid.headers.get('location'), `/pay/${payment.orderId}`);
    assert.deepEqual((await status(payment.orderId)).body, { status: 'paid', amountCny: 8 });
    assert.match(await (await page(payment.orderId)).text(), /Paid/);

    // A second click and a late cancel change nothing.
    await click(payment.orderId, 'pay');
    await click(payment.orderId, 'cancel');
    assert.equal((await status(payment.orderId)).body.status, 'paid');
    assert.deepEqual(await resolutions(conversationId), [
      {
        sender: 'system',
        event: 'payment_gate_resolution',
        raw: { type: 'payment_gate_resolution', orderId: payment.orderId, status: 'paid' },
      },
    ]);
  });

  it('the demo agent acknowledges a paid order in a turn of its own, and a canceled one too', async () => {
    for (const [action, said] of [
      ['pay', 'Thank you, your payment of CN¥8.80 is received.'],
      ['cancel', 'Your payment of CN¥8.80 was canceled; nothing was charged. Send `/pay` again when you like.'],
    ] as const) {
      const { conversationId, payment } = await order('8.8');
      const before = (await entries(conversationId)).at(-1)!.id!;
      assert.equal((await click(payment.orderId, action)).status, 303);
      const followed = await readTurn(server, 'pk_alice', conversationId, before);
      assert.equal(followed[0]?.raw.type, 'payment_gate_resolution');
      assert.equal(replyText(followed), said);
      assert.equal(resultOf(followed).subtype, 'success');
    }
  });

  it("a settled order's page offers a way back to the chat: a button that closes the tab, the one script allowed", async () => {
    const { payment } = await order('6');
    await click(payment.orderId, 'pay');
    const res = await page(payment.orderId);
    const html = await res.text();
    assert.match(html, /Payment received/);
    assert.match(html, /<button id="back"[^>]*hidden[^>]*>Back to the chat<\/button>/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 1);
    assert.match(scripts[0]!, /window\.close\(\)/);
    assert.doesNotMatch(scripts[0]!, /location|opener|href/, 'it sends the visitor nowhere');
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.ok(csp.endsWith(`script-src 'sha256-${hash}'`), `only that script may run: ${csp}`);
  });

  it('pays and cancels only from its own page: a form posted from another site changes nothing', async () => {
    const { payment } = await order('4');
    const post = (action: string, headers: Record<string, string>, orderId = payment.orderId) =>
      fetch(`${server.url}/pay/${orderId}/${action}`, { method: 'POST', redirect: 'manual', headers });
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { origin: `${server.url}.evil.example` },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      for (const action of ['pay', 'cancel']) {
        const res = await post(action, headers);
        assert.equal(res.status, 403, `${action} ${JSON.stringify(headers)}`);
        assert.match(await res.text(), /Not from this page/);
      }
    }
    assert.equal((await status(payment.orderId)).body.status, 'pending');
    // From the page itself (the origin the browser names), it pays.
    assert.equal((await post('pay', { origin: server.url, 'sec-fetch-site': 'same-origin' })).status, 303);
    assert.equal((await status(payment.orderId)).body.status, 'paid');
    // So does `Origin: null` from the same origin (a browser whose referrer setting withholds the origin).
    const other = (await order('5')).payment.orderId;
    assert.equal((await post('cancel', { origin: 'null', 'sec-fetch-site': 'same-origin' }, other)).status, 303);
    assert.equal((await status(other)).body.status, 'canceled');
    assert.equal((await status(payment.orderId)).body.status, 'paid');
  });

  it('cancels through the page form', async () => {
    const { conversationId, payment } = await order('3.2');
    assert.equal((await click(payment.orderId, 'cancel')).status, 303);
    assert.equal((await status(payment.orderId)).body.status, 'canceled');
    await click(payment.orderId, 'pay');
    assert.equal((await status(payment.orderId)).body.status, 'canceled', 'a canceled order cannot be paid');
    const html = await (await page(payment.orderId)).text();
    assert.match(html, /Canceled/);
    assert.doesNotMatch(html, /<form/);
    assert.deepEqual(
      (await resolutions(conversationId)).map((r) => r.raw),
      [{ type: 'payment_gate_resolution', orderId: payment.orderId, status: 'canceled' }],
    );
  });

  it('settles racing clicks with exactly one resolution', async () => {
    const { conversationId, payment } = await order('5');
    const clicks = Array.from({ length: 20 }, (_, i) => click(payment.orderId, i % 2 ? 'pay' : 'cancel'));
    await Promise.all(clicks);
    const records = await resolutions(conversationId);
    assert.equal(records.length, 1);
    assert.equal((await status(payment.orderId)).body.status, (records[0]!.raw as { status: string }).status);
  });

  it('expires an unpaid order on time, by itself, and refuses to pay it afterwards', async () => {
    const { conversationId, payment } = await order('2 1');
    assert.equal((await status(payment.orderId)).body.status, 'pending');
    // Only the conversation is read: the expiry must happen without anyone looking at the order.
    const reader = await openSse(streamUrl(server, conversationId), { token: 'pk_alice' });
    try {
      await reader.waitFor((records) => records.some((r) => r.raw.type === 'payment_gate_resolution'));
    } finally {
      reader.close();
    }
    assert.deepEqual(
      (await resolutions(conversationId)).map((r) => r.raw),
      [{ type: 'payment_gate_resolution', orderId: payment.orderId, status: 'expired' }],
    );
    assert.equal((await status(payment.orderId)).body.status, 'expired');

    assert.equal((await click(payment.orderId, 'pay')).status, 303);
    assert.equal((await status(payment.orderId)).body.status, 'expired');
    const html = await (await page(payment.orderId)).text();
    assert.match(html, /expired before it was paid, so it can no longer be paid/);
    assert.doesNotMatch(html, /<form/);
    assert.equal((await resolutions(conversationId)).length, 1);
  });

  /** An order stored as a runtime's paymentGate stores it, without its record. */
  async function storeOrder(o: Parameters<TestServer['ctx']['payments']['order']>[0]) {
    const { order, payment } = server.ctx.payments.order(o);
    await server.ctx.db.transaction((tx) => server.ctx.payments.store(tx, order));
    return payment;
  }

  it('expires an order whose timer was lost (a restart) as soon as it is read', async () => {
    const { conversationId } = await order('1');
    const payment = await storeOrder({
      conversationId,
      userId: 'alice',
      agentId: 'agent_demo',
      amountCny: 1,
      title: 'Lost timer',
      expiresInSeconds: 0.05,
      baseUrl: server.url,
    });
    server.ctx.payments.stopTimers();
    await sleep(100);
    assert.equal((await status(payment.orderId)).body.status, 'expired');
    assert.deepEqual(
      (await resolutions(conversationId)).map((r) => r.raw),
      [{ type: 'payment_gate_resolution', orderId: payment.orderId, status: 'expired' }],
    );
  });

  it('shows order text as text, never as markup', async () => {
    const { conversationId } = await order('1');
    const payment = await storeOrder({
      conversationId,
      userId: 'alice',
      agentId: 'agent_demo',
      amountCny: 1234.5,
      title: '<script>alert(1)</script>',
      description: '<img src=x onerror=alert(2)>',
      expiresInSeconds: 60,
      baseUrl: server.url,
    });
    const html = await (await page(payment.orderId)).text();
    assert.doesNotMatch(html, /<script>alert|<img src=x/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /CN¥1,234\.50/);
  });

  it("answers 404 for another user's order and for unknown orders", async () => {
    const { payment } = await order('4');
    const bob = await status(payment.orderId, 'pk_bob');
    assert.deepEqual([bob.status, bob.body.detail], [404, 'order not found']);
    const unknown = await status('ord_nope');
    assert.deepEqual([unknown.status, unknown.body.detail], [404, 'order not found']);
    const anonymous = await server.api(`/payments/${payment.orderId}/status`);
    assert.deepEqual([anonymous.status, anonymous.body.detail], [401, 'invalid Bearer token']);
    const missingPage = await page('ord_nope');
    assert.equal(missingPage.status, 404);
    assert.match(await missingPage.text(), /Order not found/);
    assert.equal((await click('ord_nope', 'pay')).status, 404);
  });

  it('stops every expiry timer when the service closes', async () => {
    const other = await startTestServer();
    // The card is stored with its order, whose expiry timer is then running.
    await sendAndRead(other, 'pk_alice', { message: '/pay 1', targetAgentIds: ['agent_demo'] });
    assert.equal(other.ctx.payments.armedTimers, 1);
    await other.close();
    assert.equal(other.ctx.payments.armedTimers, 0);
  });
});

describe('the expiry job of instances sharing PostgreSQL', () => {
  it('expires every due order though one cannot be expired, and logs that one once, not at every run', async () => {
    const logged: string[] = [];
    const server = await startTestServer({
      db: await (await testPostgres()).createDatabase(),
      log: { level: 'error', destination: { write: (line) => logged.push(JSON.parse(line).msg) } },
    });
    try {
      const { sent } = await sendAndRead(server, 'pk_alice', { message: 'hi', targetAgentIds: ['agent_demo'] });
      const { conversationId } = sent;
      const due = (conversation: string, secondsAgo: number) => {
        const order = newPaymentOrder({
          conversationId: conversation,
          userId: 'alice',
          agentId: 'agent_demo',
          amountCny: 1,
          title: 'due',
          expiresAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
        });
        return insertPaymentOrder(server.ctx.db, order).then(() => order.id);
      };
      /** Resolves once the order's expiry is stored in the conversation (by the job: the order has no timer). */
      const expired = (orderId: string) =>
        new Promise<void>((resolve) => {
          const follower = server.ctx.records.follow(conversationId, undefined, {
            record(record) {
              if (record.raw.type === 'payment_gate_resolution' && record.raw.orderId === orderId) {
                follower.stop();
                resolve();
              }
              return true;
            },
            close() {},
          });
        });
      // An order of a conversation that is not there (what a delete left before this version) comes first.
      await due('c_gone', 60);
      for (let run = 0; run < 3; run++) {
        const orderId = await due(conversationId, 1);
        await expired(orderId);
      }
      assert.deepEqual(
        logged.filter((line) => line.startsWith('recovery')),
        [logged.find((line) => line.startsWith('recovery failed'))],
        'one line for the order that fails at every run',
      );
      assert.match(logged.find((line) => line.startsWith('recovery'))!, /1 payment orders due could not be expired/);
    } finally {
      await server.close();
    }
  });
});
