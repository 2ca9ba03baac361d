import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { ChatClient } from '../../../src/client/chat.js';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import ar from '../../../src/labels/ar.js';
import en from '../../../src/labels/en.js';
import zh from '../../../src/labels/zh-CN.js';
import { part, parts } from '../../cards/helpers.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { panelRoot } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';

type ErrorDetail = { message: string; status?: number };

const shownText = (node: Node | null | undefined) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The `svc-error` details `el` emits and the console lines logged, from now until `stop()`. */
function watchErrors(el: SvcChat) {
  const events: ErrorDetail[] = [];
  const logged: string[] = [];
  el.addEventListener('svc-error', (e) => events.push((e as CustomEvent<ErrorDetail>).detail));
  const original = console.error;
  console.error = (...args: unknown[]) => {
    logged.push(args.join(' '));
  };
  return { events, logged, stop: () => (console.error = original) };
}

/** `body` with each of its lines passed through `rewrite` (a line is held until it ends). */
function rewriteLines(body: ReadableStream<Uint8Array>, rewrite: (line: string) => string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let partial = '';
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
        partial = lines.pop()!;
        for (const line of lines) controller.enqueue(encoder.encode(`${rewrite(line)}\n`));
      },
      flush(controller) {
        if (partial) controller.enqueue(encoder.encode(rewrite(partial)));
      },
    }),
  );
}

describe('what the visitor reads when something fails', () => {
  for (const [lang, labels] of [
    ['en', en.chat],
    ['zh-CN', zh.chat],
    ['ar', ar.chat],
  ] as const) {
    it(`says a failed reply with the agent's name and the service's sentence, with a Retry (${lang}); also to svc-error and the console`, async () => {
      const { url } = await service();
      const { token } = await mintVisitorSession();
      const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} token=${token}
        agent-ids="agent_aria" lang=${lang}></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
      const errors = watchErrors(el);
      try {
        const done = oneEvent(el, 'svc-turn-complete');
        await el.send('/error');
        await done;
        const failed = await until(() => part(el, 'message-error'), 'the failed reply');
        const detail = 'This reply failed on purpose, to show what a failed reply looks like.';
        expect(errors.events.map((e) => e.message)).to.deep.equal([detail]);
        expect(errors.logged.some((line) => line.includes(detail))).to.equal(true);
        // The service's sentence (written for visitors), by the agent whose reply failed, once.
        const retry = failed.querySelector<HTMLButtonElement>('[part~=retry-button]')!;
        const said = labels.replyFailedBy('Aria', detail);
        expect(shownText(failed)).to.equal(`${said} ${labels.retry}`);
        expect(shownText(panelRoot(el)).split(detail)).to.have.length(2, 'said once');
        expect(parts(el, 'notice')).to.have.length(0);
        const again = oneEvent(el, 'svc-message-sent');
        retry.click();
        expect((await again).detail.text).to.equal('/error');
      } finally {
        errors.stop();
      }
    });
  }

  it('shows the reason of a failed reply as a sentence: a capital and a final period, other scripts as they are, none in the chat’s words', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The service ends some replies with a sentence of its own in lowercase (a stop or a restart during the
    // reply): the stream carries `reason` in place of the demo's `/error` sentence.
    const demoFailure = 'This reply failed on purpose, to show what a failed reply looks like.';
    let reason = 'the service stopped during this reply';
    const rewritten: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!new URL(String(input)).pathname.endsWith('/stream') || !res.body) return res;
      const body = rewriteLines(res.body, (line) => line.replace(demoFailure, reason));
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: rewritten }) };
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat .client=${client}
      agent-ids="agent_aria" lang="en"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    const failed = async (n: number) => {
      const done = oneEvent(el, 'svc-turn-complete');
      await el.send('/error');
      await done;
      return until(() => parts(el, 'message-error')[n], 'the failed reply');
    };
    const first = await failed(0);
    const said = en.chat.replyFailedBy('Aria', 'The service stopped during this reply.');
    expect(shownText(first)).to.equal(`${said} ${en.chat.retry}`);
    reason = '服务在回复时停止了';
    const second = await failed(1);
    expect(shownText(second)).to.equal(`${en.chat.replyFailedBy('Aria', reason)} ${en.chat.retry}`);
    // No sentence at all: the chat's own, in its language.
    reason = '';
    const third = await failed(2);
    expect(shownText(third)).to.equal(`${en.chat.replyFailedBy('Aria', en.chat.replyFailed)} ${en.chat.retry}`);
  });

  it('says a token endpoint that fails once, in a plain sentence, and keeps the message for a retry', async () => {
    const { url } = await service();
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} agent-ids="agent_echo"
      lang="en" token-endpoint="/__svc/token-unavailable"></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const errors = watchErrors(el);
    try {
      await el.send('hello');
      await until(() => parts(el, 'retry-button')[0], 'the retry button');
      const detail = 'could not get a session token: the token endpoint answered 500';
      expect(errors.events).to.deep.equal([{ message: detail, status: 500 }]);
      expect(errors.logged.filter((line) => line.includes(detail))).to.have.length(1);
      expect(parts(el, 'notice').map(shownText)).to.deep.equal([en.chat.serviceError]);
      expect(shownText(panelRoot(el))).not.to.contain('token endpoint');
      expect(shownText(panelRoot(el)).split(en.chat.serviceError)).to.have.length(2, 'said once');
      expect(shownText(panelRoot(el))).to.contain(en.chat.sendFailed);
    } finally {
      errors.stop();
    }
  });
});
