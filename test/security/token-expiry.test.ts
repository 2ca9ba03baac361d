import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../src/client/chat.js';
import { HttpClient } from '../../src/client/http.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { EN_LABELS } from '../../src/labels/en.js';
import { extractText } from '../../src/protocol/records.js';
import { lastSmsCode, mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { inShadow, panelRoot, parts } from '../helpers/chat-parts.js';
import { chatReady } from '../helpers/chat-ready.js';

/** Lifetime of the first token the provider mints: shorter than the first reply. */
const TTL_SECONDS = 2;
/** Lifetime of a renewed token: longer than the rest of the test, so the count of renewals is exact. */
const RENEWED_TTL_SECONDS = 60;

const shownText = (node: Node | null | undefined) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();

/**
 * A chat whose token provider mints a 2-second token for one visitor, then minute-long ones; `bare` hands out
 * only the token (the widget learns it expired from a 401) instead of `{ token, expires_at }` (renewed before
 * it expires).
 */
async function expiringChat(bare: boolean) {
  const { url } = await service();
  const ref = `expiry_${Date.now()}_${Math.random().toString(36).slice(2)}`;
  const minted: string[] = [];
  const provider = async () => {
    const grant = await mintVisitorSession(minted.length ? RENEWED_TTL_SECONDS : TTL_SECONDS, ref);
    minted.push(grant.token);
    return bare ? grant.token : grant;
  };
  const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} agent-ids="agent_aria"
    .tokenProvider=${provider}></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
  return { el, minted, url, ref };
}

/** Two replies, the first outliving the token it started with, then the chat compared with what the service stored. */
async function converseAcrossExpiry(el: SvcChat, url: string, ref: string) {
  const errors: string[] = [];
  el.addEventListener('svc-error', (e) => errors.push((e as CustomEvent<{ message: string }>).detail.message));
  const first = oneEvent(el, 'svc-turn-complete');
  await el.send('/slow 3');
  expect((await first).detail.subtype).to.equal('success');
  const second = oneEvent(el, 'svc-turn-complete');
  await el.send('/slow 1');
  const { detail } = await second;
  expect(detail.subtype).to.equal('success');

  const { token } = await mintVisitorSession(60, ref);
  const chat = new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));
  const { entries } = await chat.messages(detail.conversationId);
  const stored = (type: string) => entries.filter((e) => e.raw.type === type).map((e) => extractText(e).trim());
  await until(
    () => parts(el, 'message-agent').every((m) => !m.querySelector('[part~="bubble"].cursor')),
    'the replies to finish rendering',
  );
  expect(parts(el, 'message-user').map((m) => shownText(m.querySelector('[part~="bubble"]')))).to.deep.equal(
    stored('user'),
  );
  expect(parts(el, 'message-agent').map((m) => shownText(m.querySelector('svc-markdown')?.shadowRoot))).to.deep.equal(
    stored('assistant').map((text) => text.replace(/\s+/g, ' ')),
  );
  expect(errors).to.deep.equal([]);
}

describe('a session token that expires mid-conversation', function () {
  this.timeout(60_000);

  // The token each record stream of the page was opened with, in order: the service ends a stream when the
  // token it was opened with expires (after the reply running then), and the chat opens another with a renewed one.
  let streamTokens: string[];
  let pageFetch: typeof fetch;
  beforeEach(() => {
    streamTokens = [];
    pageFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (/\/conversations\/[^/]+\/stream/.test(String(input))) {
        streamTokens.push(new Headers(init?.headers).get('authorization')?.replace('Bearer ', '') ?? '');
      }
      return pageFetch(input, init);
    };
  });
  afterEach(() => {
    globalThis.fetch = pageFetch;
  });

  it('is renewed before it expires through the token provider, losing no message or record', async () => {
    const { el, minted, url, ref } = await expiringChat(false);
    await converseAcrossExpiry(el, url, ref);
    expect(minted.length).to.be.at.least(2);
    expect(new Set(minted).size).to.equal(minted.length);
    // The stream opened with the first token ended when it expired; the chat read on with a renewed one.
    expect(streamTokens[0]).to.equal(minted[0]);
    expect(streamTokens.slice(1)).to.include(minted.at(-1));
  });

  it('is renewed on the 401 when the provider does not say when it expires, losing nothing', async () => {
    const { el, minted, url, ref } = await expiringChat(true);
    await converseAcrossExpiry(el, url, ref);
    // One token for the first reply, and exactly one renewal after the service refused the expired one.
    expect(minted.length).to.equal(2);
    expect(streamTokens[0]).to.equal(minted[0]);
    expect(streamTokens.slice(1)).to.include(minted[1]);
  });
});

/** Types `phone`, then the code the service texted to it, into the chat's sign-in form. */
async function signInBySms(el: SvcChat, phone: string): Promise<void> {
  const form = await until(
    () => inShadow<HTMLElementTagNameMap['svc-sms-sign-in']>(el, 'svc-sms-sign-in'),
    'the sign-in form',
  );
  await form.updateComplete;
  const field = (name: string) => form.shadowRoot!.querySelector<HTMLInputElement>(`input[name=${name}]`);
  const submit = () => form.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
  field('phone')!.value = phone;
  submit();
  const codeField = await until(() => field('code'), 'the code step');
  codeField.value = await until(() => lastSmsCode(phone), 'the SMS');
  const signedIn = oneEvent(el, 'svc-signed-in');
  submit();
  await signedIn;
}

describe('an SMS session that expires mid-conversation', function () {
  this.timeout(60_000);

  it('returns the visitor to the sign-in form, once, with a clear message, and they carry on', async () => {
    const { url } = await service();
    const phone = `+86138${String(Date.now()).slice(-8)}`;
    // The visitor signed in by SMS earlier in this tab (persist-session), and their session ends in 2 s: the
    // member an SMS sign-in makes for this phone, with a session minted as short as the service allows.
    const session = await mintVisitorSession(TTL_SECONDS, `sms:${phone}`);
    sessionStorage.setItem(`svc-chat-session:${url}|demo`, JSON.stringify(session));
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} sign-in="sms"
      workspace="demo" persist-session agent-ids="agent_aria"></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const errors: { message: string; status?: number }[] = [];
    el.addEventListener('svc-error', (e) =>
      errors.push((e as CustomEvent<{ message: string; status?: number }>).detail),
    );

    // A reply that outlives the session, then a message after it ended.
    const first = oneEvent(el, 'svc-turn-complete');
    await el.send('/slow 3');
    expect((await first).detail.subtype).to.equal('success');
    expect(parts(el, 'sign-in')).to.have.length(0);
    await el.send('are you still there?');

    const notice = await until(() => parts(el, 'sign-in')[0] && parts(el, 'notice')[0], 'the sign-in form');
    expect(shownText(notice)).to.equal('Your session expired. Sign in again.');
    expect(errors).to.deep.equal([{ message: 'Your session expired. Sign in again.', status: 401 }]);
    expect(parts(el, 'input'), 'no composer while signed out').to.have.length(0);
    expect(sessionStorage.getItem(`svc-chat-session:${url}|demo`), 'the ended session is forgotten').to.equal(null);

    // Signing in again brings the chat back, and nothing of the old session fails any more.
    await signInBySms(el, phone);
    const next = oneEvent(el, 'svc-turn-complete');
    await el.send('back again');
    expect((await next).detail.subtype).to.equal('success');
    expect(parts(el, 'sign-in')).to.have.length(0);
    expect(parts(el, 'notice')).to.have.length(0);
    expect(errors).to.have.length(1);
  });
});

describe('a token endpoint that fails', () => {
  it('says so once, in plain words (the failure to get a session with its status in svc-error), and keeps the message for a retry', async () => {
    const { url } = await service();
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} agent-ids="agent_echo"
      token-endpoint="/__svc/token-unavailable"></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const errors: { message: string; status?: number }[] = [];
    el.addEventListener('svc-error', (e) =>
      errors.push((e as CustomEvent<{ message: string; status?: number }>).detail),
    );
    await el.send('hello');
    await until(() => parts(el, 'retry-button')[0], 'the retry button');
    const reason = 'could not get a session token: the token endpoint answered 500';
    expect(errors).to.deep.equal([{ message: reason, status: 500 }]);
    expect(parts(el, 'notice').map(shownText)).to.deep.equal([EN_LABELS.serviceError]);
    expect(shownText(panelRoot(el)).split(EN_LABELS.serviceError)).to.have.length(2, 'the failure is said once');
    expect(shownText(panelRoot(el))).not.to.contain(reason);
    expect(shownText(panelRoot(el))).to.contain('Not sent.');
  });
});
