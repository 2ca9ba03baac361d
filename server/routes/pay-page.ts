import { createHash } from 'node:crypto';
import type { PaymentStatus } from '@svc/agent-sdk/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { baseUrlOf } from '../http/public-url.js';
import { writtenCny } from '../runtimes/types.js';
import type { AppContext } from '../services/context.js';
import type { PaymentOrder } from '../store/payment-order-rows.js';
import { followPayment } from '../turns/begin-turn.js';
import type { ZodApp } from './route-module.js';

/**
 * The local checkout behind a `payUrl`: what a payment provider's hosted page would be, without money.
 * The order id is the capability (as in a provider's checkout URL), so no credential is asked for.
 * Plain HTML forms: no script, so the CSP forbids every script, except on a settled order's page the one that
 * closes it (BACK_SCRIPT, allowed by its hash).
 */
export default function payPageRoutes(app: ZodApp, ctx: AppContext) {
  const params = z.object({ orderId: z.string() });
  // The Pay and Cancel forms post an empty urlencoded body; nothing in it is read.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_r, _b, done) => done(null, undefined),
  );

  app.get('/pay/:orderId', { schema: { params } }, async (req, reply) => {
    const order = await ctx.payments.get(req.params.orderId);
    if (order?.conversationDeleted) return sendPage(reply, 410, undefined, deletedPage(order));
    return sendPage(reply, order ? 200 : 404, order);
  });

  for (const [action, status] of [
    ['pay', 'paid'],
    ['cancel', 'canceled'],
  ] as const) {
    app.post(`/pay/:orderId/${action}`, { schema: { params } }, async (req, reply) => {
      // A form on another site cannot pay or cancel for the visitor (cross-site request forgery).
      if (!fromOwnPage(req, ctx.publicUrl)) return sendPage(reply, 403, undefined, foreignPage());
      const baseUrl = baseUrlOf(ctx, req);
      // The agent that asked for the payment acknowledges it in a turn of its own.
      const order = await ctx.payments.resolve(req.params.orderId, status, (tx, settled, resolution) =>
        followPayment(ctx, tx, settled, resolution, baseUrl),
      );
      if (!order) return sendPage(reply, 404, undefined);
      if (order.conversationDeleted) return sendPage(reply, 410, undefined, deletedPage(order));
      // Post/redirect/get: a reload of the result page never posts twice.
      return reply
        .code(303)
        .header('location', `/pay/${encodeURIComponent(order.id)}`)
        .send();
    });
  }
}
payPageRoutes.prefix = '/';

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The way back from a settled order (docs/server.md "The pay page"): the card opens this page with
 * `window.open(…, 'noopener')`, a tab a script opened, which browsers let a script close; so "Back to the chat"
 * closes it, and the chat's tab is there beneath. Where the tab cannot be closed by script (the link was opened
 * by hand), the button says to close the tab. No return URL: the page never sends anyone elsewhere.
 */
const BACK_SCRIPT = `const back = document.getElementById('back');
back.hidden = false;
back.addEventListener('click', () => {
  window.close();
  if (!window.closed) back.textContent = back.dataset.cannot;
});`;
const BACK_CSP = `${CSP}; script-src '${hashOf(BACK_SCRIPT)}'`;

/**
 * Whether a Pay or Cancel post comes from the pay page itself: its `Origin` (which browsers send with every
 * form post) is the origin of `--public-url`, or names the host the request came to. Without `Origin`
 * (a client that is not a browser), a browser's `Sec-Fetch-Site` must not say `cross-site`; with `Origin: null`
 * (a privacy setting, or a sandboxed frame) it must say `same-origin`.
 */
function fromOwnPage(req: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] !== 'cross-site';
  if (origin === 'null') return req.headers['sec-fetch-site'] === 'same-origin';
  const from = URL.parse(origin);
  if (!from) return false;
  if (publicUrl && new URL(publicUrl).origin === from.origin) return true;
  // The host the request came to, on any port (a proxy's `Host $host` drops the port).
  const to = URL.parse(`${req.protocol}://${req.headers.host ?? ''}`);
  return !!to && from.protocol === to.protocol && from.hostname === to.hostname;
}

function foreignPage(): string {
  return layout(
    'Not from this page',
    '',
    `<p class="eyebrow">Test checkout</p><h1>Not from this page</h1>
    <p class="note">A payment is confirmed or canceled only from its own page. Open the link the agent sent.</p>`,
  );
}

function sendPage(reply: FastifyReply, code: number, order: PaymentOrder | undefined, page?: string) {
  const settled = !page && order && order.status !== 'pending';
  return reply
    .code(code)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': settled ? BACK_CSP : CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      // Not `no-referrer`: under it a browser sends `Origin: null` with the page's own Pay and Cancel posts.
      'referrer-policy': 'same-origin',
    })
    .send(page ?? (order ? orderPage(order) : notFoundPage()));
}

const STATUS_TEXT: Record<PaymentStatus, { label: string; note: string }> = {
  pending: { label: 'Awaiting payment', note: '' },
  paid: { label: 'Paid', note: 'Payment received. You can close this page and return to the chat.' },
  canceled: { label: 'Canceled', note: 'This order was canceled. You can close this page and return to the chat.' },
  expired: {
    label: 'Expired',
    note: 'This order expired before it was paid, so it can no longer be paid. Ask the agent for a new one.',
  },
};

function orderPage(order: PaymentOrder): string {
  const { label, note } = STATUS_TEXT[order.status];
  const secondsLeft = Math.max(0, Math.ceil((Date.parse(order.expiresAt) - Date.now()) / 1000));
  const pending = order.status === 'pending';
  const action = `/pay/${encodeURIComponent(order.id)}`;
  const body = pending
    ? `<p class="note">Expires in ${escapeHtml(formatDuration(secondsLeft))}.</p>
      <div class="actions">
        <form method="post" action="${action}/pay"><button class="pay" type="submit">Pay ${escapeHtml(writtenCny(order.amountCny))}</button></form>
        <form method="post" action="${action}/cancel"><button class="cancel" type="submit">Cancel</button></form>
      </div>`
    : `<p class="note">${escapeHtml(note)}</p>
      <div class="actions"><button id="back" class="pay" type="button" hidden
        data-cannot="Close this tab to go back to the chat." aria-live="polite">Back to the chat</button></div>
      <script>${BACK_SCRIPT}</script>`;
  return layout(
    `${order.title} · ${writtenCny(order.amountCny)}`,
    // While pending, the page reloads itself when the order expires, so it never offers a dead Pay button.
    pending ? `<meta http-equiv="refresh" content="${secondsLeft + 1}">` : '',
    `<p class="eyebrow">Test checkout</p>
    <h1>${escapeHtml(order.title)}</h1>
    ${order.description ? `<p class="description">${escapeHtml(order.description)}</p>` : ''}
    <p class="amount">${escapeHtml(writtenCny(order.amountCny))}</p>
    <p class="status status-${order.status}">${label}</p>
    ${body}
    <p class="fine">Order ${escapeHtml(order.id)}. This local page stands in for a payment provider; no money moves.</p>`,
  );
}

/** An order whose conversation was deleted (which canceled it if it was pending): 410, nothing to pay. */
function deletedPage(order: PaymentOrder): string {
  const paid = order.status === 'paid';
  return layout(
    'Conversation deleted',
    '',
    `<p class="eyebrow">Test checkout</p><h1>${escapeHtml(order.title)}</h1>
    <p class="status status-${order.status}">${STATUS_TEXT[order.status].label}</p>
    <p class="note">The conversation this order came from was deleted${
      paid ? '.' : ', so the order can no longer be paid. Ask for a new one in another conversation.'
    }</p>`,
  );
}

function notFoundPage(): string {
  return layout(
    'Order not found',
    '',
    `<p class="eyebrow">Test checkout</p><h1>Order not found</h1>
    <p class="note">This payment link does not match any order. Check the link the agent sent.</p>`,
  );
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return `${seconds} s`;
  return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
}

function layout(title: string, head: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}
<style>
  :root { color-scheme: light dark; --accent: #2563eb; --muted: #6b7280; --card: #ffffff; --bg: #f3f4f6; }
  @media (prefers-color-scheme: dark) { :root { --card: #1f2937; --bg: #111827; --muted: #9ca3af; } }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 24px;
    font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Microsoft YaHei", sans-serif;
    background: var(--bg); }
  main { width: 100%; max-width: 420px; background: var(--card); border-radius: 16px; padding: 32px;
    box-shadow: 0 10px 30px rgb(0 0 0 / 0.08); text-align: center; }
  .eyebrow { margin: 0; font-size: 12px; letter-spacing: 0.08em; text-transform: uppercase; color: var(--muted); }
  h1 { margin: 8px 0 4px; font-size: 20px; }
  .description { margin: 0; color: var(--muted); }
  .amount { margin: 20px 0 8px; font-size: 40px; font-weight: 700; font-variant-numeric: tabular-nums; }
  .status { display: inline-block; margin: 0; padding: 2px 12px; border-radius: 999px; font-size: 14px; font-weight: 600; }
  .status-pending { background: #fef3c7; color: #92400e; }
  .status-paid { background: #dcfce7; color: #166534; }
  .status-canceled, .status-expired { background: #e5e7eb; color: #374151; }
  .note { margin: 16px 0 0; }
  .actions { display: flex; gap: 12px; margin-top: 24px; }
  .actions form { flex: 1; margin: 0; }
  button { width: 100%; padding: 12px; border-radius: 10px; font: inherit; font-weight: 600; cursor: pointer; }
  .pay { border: 0; background: var(--accent); color: #fff; }
  .pay:hover { filter: brightness(1.1); }
  .cancel { border: 1px solid var(--muted); background: transparent; color: inherit; }
  button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .fine { margin: 24px 0 0; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
</style>
</head>
<body><main>
${content}
</main></body>
</html>
`;
}

function hashOf(script: string): string {
  return `sha256-${createHash('sha256').update(script).digest('base64')}`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
