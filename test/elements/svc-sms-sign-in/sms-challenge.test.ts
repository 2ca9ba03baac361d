import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import '../../../src/elements/svc-sms-sign-in/svc-sms-sign-in.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcSmsSignIn } from '../../../src/elements/svc-sms-sign-in/svc-sms-sign-in.js';
import { lastSmsCode, service, until } from '../../helpers/browser-service.js';
import { part } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';

/*
 * SMS sign-in on the service that asks for its challenge (a stand-in `siteverify` accepting `solved`) before it
 * sends a code to any new number: the page answers, or the visitor is told plainly.
 */

let phones = 0;
/** A number the service has never sent a code to. */
const newPhone = () => `+86139${String(Date.now() + phones++ * 7919).slice(-8)}`;

const shadow = (el: SvcSmsSignIn) => el.shadowRoot!;

/** Types `phone` and asks for a code. */
async function askCode(el: SvcSmsSignIn, phone: string): Promise<void> {
  await el.updateComplete;
  shadow(el).querySelector<HTMLInputElement>('input[name=phone]')!.value = phone;
  shadow(el).querySelector<HTMLButtonElement>('button[type=submit]')!.click();
}

/** Enters the code the service sent to `phone` and resolves with the `svc-signed-in` event's detail. */
async function enterCode(el: SvcSmsSignIn, host: HTMLElement, phone: string) {
  const input = await until(() => shadow(el).querySelector<HTMLInputElement>('input[name=code]'), 'the code step');
  input.value = (await lastSmsCode(phone))!;
  const signedIn = oneEvent(host, 'svc-signed-in');
  shadow(el).querySelector<HTMLButtonElement>('button[type=submit]')!.click();
  return (await signedIn).detail;
}

const errorText = (el: SvcSmsSignIn) => shadow(el).querySelector('[part=error]')?.textContent?.trim();

async function signInElement(): Promise<SvcSmsSignIn> {
  const { challenge } = await service();
  return fixture<SvcSmsSignIn>(html`<svc-sms-sign-in base-url=${challenge.url} workspace="demo">
    <div slot="challenge" id="captcha" style="height: 40px">the site's CAPTCHA</div>
  </svc-sms-sign-in>`);
}

/** Whether the slotted CAPTCHA is on screen (its slot is rendered only while the challenge is asked). */
const captchaShown = (el: SvcSmsSignIn) => el.querySelector('#captcha')!.getClientRects().length > 0;

describe('SMS sign-in asked for a challenge', () => {
  it('shows the CAPTCHA slot, sends the code with the answer of `challenge`, and signs the visitor in', async () => {
    const el = await signInElement();
    expect(captchaShown(el)).to.equal(false);
    let answer!: (token: string) => void;
    let asked = 0;
    el.challenge = () => {
      asked++;
      return new Promise((resolve) => {
        answer = resolve;
      });
    };
    const phone = newPhone();
    await askCode(el, phone);
    await until(() => asked === 1 && captchaShown(el), 'the CAPTCHA, shown');
    expect(shadow(el).querySelector('[part=message]')!.textContent).to.contain('Confirm that you are a person');
    answer('solved');
    const detail = await enterCode(el, el, phone);
    expect(detail.token).to.be.a('string');
    expect(asked).to.equal(1);
    expect(captchaShown(el)).to.equal(false);
  });

  it('inside <svc-chat>: the page answers `svc-sms-challenge`, its CAPTCHA shows in the chat, and the visitor chats', async () => {
    const { challenge } = await service();
    const wrapper = await fixture(html`<div style="height: 600px"><svc-chat base-url=${challenge.url} sign-in="sms"
      workspace="demo" agent-ids="agent_echo"><div slot="sms-challenge" id="captcha" style="height: 40px">CAPTCHA</div>
      </svc-chat></div>`);
    const chat = await chatReady(wrapper.querySelector<SvcChat>('svc-chat')!);
    const captcha = chat.querySelector('#captcha')!;
    const signIn = await until(() => part(chat, 'sign-in')?.querySelector('svc-sms-sign-in'), 'the sign-in form');
    // As a page would with Turnstile: render it into the slotted element, answer with its token once solved.
    let solve!: (token: string) => void;
    let askedFor: string | undefined;
    chat.addEventListener('svc-sms-challenge', ({ detail }) => {
      askedFor = detail.phone;
      detail.respond(
        new Promise((resolve) => {
          solve = resolve;
        }),
      );
    });
    const phone = newPhone();
    await askCode(signIn, phone);
    await until(() => captcha.getClientRects().length > 0, 'the CAPTCHA, shown in the chat');
    expect(askedFor).to.equal(phone);
    solve('solved');
    const signedIn = await enterCode(signIn, chat, phone);
    expect(signedIn.user_id).to.be.a('string');
    await until(() => part(chat, 'input'), 'the composer');
  });

  it('without a way to answer: a plain sentence, and no code sent', async () => {
    const el = await signInElement();
    const phone = newPhone();
    await askCode(el, phone);
    await until(() => errorText(el), 'the sentence');
    expect(errorText(el)).to.equal(
      'We cannot send a code from this page right now. Try again later, or contact the site.',
    );
    expect(shadow(el).querySelector('input[name=phone]')).not.to.equal(null);
    expect(await lastSmsCode(phone)).to.equal(undefined);
  });

  it('a wrong answer: asked once, then a sentence with a way on, no loop', async () => {
    const el = await signInElement();
    let asked = 0;
    el.challenge = async () => {
      asked++;
      return 'wrong';
    };
    const phone = newPhone();
    await askCode(el, phone);
    await until(() => errorText(el), 'the sentence');
    expect(errorText(el)).to.equal('That check did not go through. Send the code again to try once more.');
    expect(asked).to.equal(1);
    expect(await lastSmsCode(phone)).to.equal(undefined);
    // The way on: sending again asks again.
    shadow(el).querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    await until(() => asked === 2 && errorText(el), 'the second answer refused');
  });

  it('a visitor who gave up on the CAPTCHA is told so and can send again', async () => {
    const el = await signInElement();
    el.challenge = () => Promise.reject(new Error('closed'));
    await askCode(el, newPhone());
    await until(() => errorText(el), 'the sentence');
    expect(errorText(el)).to.equal('That check did not go through. Send the code again to try once more.');
    expect(shadow(el).querySelector<HTMLButtonElement>('button[type=submit]')!.disabled).to.equal(false);
  });
});
