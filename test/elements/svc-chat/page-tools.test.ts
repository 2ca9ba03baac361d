import { expect, fixture, html } from '@open-wc/testing';
import { nothing } from 'lit';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { PageTool } from '../../../src/client/page-tools.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { idle, part, parts, typeAndSend } from '../../cards/helpers.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

/*
 * Tools the page gives the chat (docs/elements.md "Tools the page gives the chat"), in the element against the
 * real service whose Aria is a `model` agent on the scripted model server: the visitor's `use NAME {…}` makes the
 * model call page tool NAME, and the model's next reply is `Thanks! I got this: <the call's result>`.
 */

const agentTexts = (el: Element) =>
  parts(el, 'message-agent').map((m) => m.querySelector('svc-markdown')?.shadowRoot?.textContent?.trim() ?? '');

/** The text of the rows of page tool calls. */
const rows = (el: SvcChat) => parts(el, 'tool-call-row').map((row) => row.textContent?.replace(/\s+/g, ' ').trim());

let slot = 0;

/**
 * A page with `tool` that closes while the model's call of it (for `product`) waits: its host took the call and
 * never answered. Resolves with what the next page needs to show the same conversation.
 */
async function closedMidCall(tool: PageTool, product: string): Promise<{ persist: string; token: string }> {
  const { model } = await service();
  const { token } = await mintVisitorSession(3600, undefined, model);
  const persist = `page-tools-${slot++}`;
  const closing = await chatWith([tool], persist, token);
  const taken = new Promise<void>((resolve) =>
    closing.addEventListener('svc-tool-call', (e) => {
      e.preventDefault();
      resolve();
    }),
  );
  typeAndSend(closing, `use ${tool.name} {"product":"${product}"}`);
  await taken;
  await until(() => rows(closing)[0] === `Using ${tool.title}…`, 'the waiting row');
  closing.parentElement!.remove();
  return { persist, token };
}

/**
 * An inline chat with the model agent (or, `demo`, the demo agent), given `tools` (unless undefined) before its
 * first message; `persist` keeps its conversation.
 */
async function chatWith(
  tools: PageTool[] | undefined,
  persist?: string,
  token?: string,
  demo = false,
): Promise<SvcChat> {
  const config = await service();
  const on = demo ? config : config.model;
  token ??= (await mintVisitorSession(3600, undefined, on)).token;
  const div = await fixture<HTMLDivElement>(html`<div style="height: 700px">
    <svc-chat base-url=${on.url} token=${token} agent-ids="agent_aria" lang="en" persist=${persist ?? nothing}></svc-chat>
  </div>`);
  const el = div.querySelector('svc-chat')!;
  if (tools) el.tools = tools;
  return chatReady(el);
}

/** A tool that adds to a cart the test holds, counting its runs. */
function cartTool(extra: Partial<PageTool> = {}) {
  const cart: { product: string; quantity: number }[] = [];
  const tool: PageTool = {
    name: 'add_to_cart',
    title: 'Add to cart',
    done: 'Added to cart',
    description: 'Adds a product to the visitor’s cart.',
    parameters: {
      type: 'object',
      properties: { product: { type: 'string' }, quantity: { type: 'integer' } },
      required: ['product'],
    },
    handler: (input) => {
      cart.push({ product: String(input.product), quantity: Number(input.quantity ?? 1) });
      return { items: cart.length, added: input.product };
    },
    ...extra,
  };
  return { tool, cart };
}

/** Resolves once the chat shows reply `text` whole (it streams in). */
const replied = (el: SvcChat, text: string) => until(() => agentTexts(el).includes(text), `the reply "${text}"`);

describe('<svc-chat> tools the page gives the chat', () => {
  it('runs the handler once when the model calls it, says so in a row, and the model’s reply uses the result', async () => {
    const { tool, cart } = cartTool();
    const el = await chatWith([tool]);
    const calls: unknown[] = [];
    const results: unknown[] = [];
    el.addEventListener('svc-tool-call', (e) => calls.push({ name: e.detail.name, input: e.detail.input }));
    el.addEventListener('svc-tool-result', (e) => results.push(e.detail));
    typeAndSend(el, 'use add_to_cart {"product":"Tea","quantity":2}');
    await replied(el, 'Thanks! I got this: {"items":1,"added":"Tea"}');
    await idle(el);
    expect(cart).to.deep.equal([{ product: 'Tea', quantity: 2 }]);
    expect(calls).to.deep.equal([{ name: 'add_to_cart', input: { product: 'Tea', quantity: 2 } }]);
    expect(results).to.have.length(1);
    expect(results[0]).to.include({ name: 'add_to_cart' }).and.have.deep.property('output', { items: 1, added: 'Tea' });
    expect(rows(el)).to.deep.equal(['Added to cart']);
    expect(part(el, 'tool-call-row')!.querySelector('[role=status]'), 'announced').to.exist;
    // The answer is not a message of the visitor's.
    expect(parts(el, 'message-user')).to.have.length(1);
    expect(await axeViolations(el).then(describeViolations)).to.equal('');
  });

  it('the demo agent’s /cart add calls the page’s tool once, and its next reply says what the page answered', async () => {
    const { tool, cart } = cartTool();
    const el = await chatWith([tool], undefined, undefined, true);
    typeAndSend(el, '/cart add Tea 2');
    await replied(el, 'Done. The page answered: {"items":1,"added":"Tea"}');
    await idle(el);
    expect(cart).to.deep.equal([{ product: 'Tea', quantity: 2 }]);
    expect(rows(el)).to.deep.equal(['Added to cart']);
  });

  it('asks first for a confirm tool: Deny answers an error and the handler never runs; Allow runs it', async () => {
    const { tool, cart } = cartTool({ confirm: 'Add this to your cart?' });
    const el = await chatWith([tool]);
    typeAndSend(el, 'use add_to_cart {"product":"Mug"}');
    await until(() => rows(el)[0]?.startsWith('Add this to your cart?'), 'the question');
    expect(rows(el)).to.deep.equal(['Add this to your cart? Allow Deny']);
    expect(await axeViolations(el).then(describeViolations)).to.equal('');
    expect(cart).to.deep.equal([]);
    const deny = parts<HTMLButtonElement>(el, 'tool-call-button').find((b) => b.textContent === 'Deny')!;
    deny.click();
    await replied(
      el,
      'Thanks! I got this: The page could not run the tool: The visitor did not allow add_to_cart to run.',
    );
    expect(rows(el)).to.deep.equal(['Could not use Add to cart']);
    expect(cart).to.deep.equal([]);
    await idle(el);

    typeAndSend(el, 'use add_to_cart {"product":"Mug"}');
    await until(() => part(el, 'tool-call-allow'), 'the second question');
    part<HTMLButtonElement>(el, 'tool-call-allow')!.click();
    await replied(el, 'Thanks! I got this: {"items":1,"added":"Mug"}');
    expect(cart).to.deep.equal([{ product: 'Mug', quantity: 1 }]);
    expect(rows(el)).to.deep.equal(['Could not use Add to cart', 'Added to cart']);
  });

  it('answers a sentence when the handler throws, and when it takes longer than its limit', async () => {
    const failing: PageTool = {
      name: 'check_stock',
      description: 'Whether a product is in stock.',
      parameters: { type: 'object', properties: {} },
      handler: () => {
        throw new Error('the stock service is down');
      },
    };
    const slow: PageTool = {
      name: 'slow_tool',
      description: 'Never finishes.',
      parameters: { type: 'object', properties: {} },
      timeoutMs: 50,
      handler: () => new Promise(() => {}),
    };
    const el = await chatWith([failing, slow]);
    typeAndSend(el, 'use check_stock {}');
    await replied(
      el,
      'Thanks! I got this: The page could not run the tool: The tool check_stock failed: the stock service is down',
    );
    await idle(el);
    typeAndSend(el, 'use slow_tool {}');
    await replied(
      el,
      'Thanks! I got this: The page could not run the tool: The tool slow_tool did not finish within 0.05 seconds.',
    );
    expect(rows(el)).to.deep.equal(['Could not use check_stock', 'Could not use slow_tool']);
  });

  it('answers a call left waiting when the page closed once it is back, and never twice', async () => {
    const { tool, cart } = cartTool();
    const { persist, token } = await closedMidCall(tool, 'Tea');

    // Back on the page, which gives its tools only once the chat shows the call from history (a page's script
    // may set them after the history came): the call waits for them, then is answered once, by the handler.
    const back = await chatWith(undefined, persist, token);
    await until(() => rows(back)[0] === 'Using add_to_cart…', 'the waiting call from history');
    back.tools = [tool];
    await replied(back, 'Thanks! I got this: {"items":1,"added":"Tea"}');
    await idle(back);
    expect(cart).to.have.length(1);
    back.parentElement!.remove();

    // Once more: the answered call is not run again.
    const calls: string[] = [];
    const again = await chatWith([tool], persist, token);
    again.addEventListener('svc-tool-call', (e) => calls.push(e.detail.toolUseId));
    await until(() => rows(again)[0] === 'Added to cart', 'the row from history');
    expect(agentTexts(again).filter((t) => t.startsWith('Thanks!'))).to.have.length(1);
    expect(calls).to.deep.equal([]);
    expect(cart).to.have.length(1);
  });

  it('answers a call left waiting that the page it comes back on does not give: not available on this page', async () => {
    const { tool, cart } = cartTool();
    const { persist, token } = await closedMidCall(tool, 'Cup');
    const other = await chatWith([], persist, token);
    await replied(
      other,
      'Thanks! I got this: The page could not run the tool: The tool add_to_cart is not available on this page.',
    );
    expect(cart).to.deep.equal([]);
  });

  it('a conversation deleted while its call runs: the answer is not sent, nothing fails, the chat starts anew', async () => {
    let finish!: (value: unknown) => void;
    const started = new Promise<void>((resolve) => {
      const tool: PageTool = {
        name: 'slow_cart',
        description: 'Adds to the cart, slowly.',
        parameters: { type: 'object', properties: {} },
        handler: () => {
          resolve();
          return new Promise((done) => {
            finish = done;
          });
        },
      };
      void chatWith([tool]).then((el) => (chat = el));
    });
    let chat!: SvcChat;
    await until(() => chat, 'the chat');
    const errors: string[] = [];
    const results: unknown[] = [];
    chat.addEventListener('svc-error', (e) => errors.push(e.detail.message));
    chat.addEventListener('svc-tool-result', (e) => results.push(e.detail));
    typeAndSend(chat, 'use slow_cart {}');
    await started;

    // The visitor deletes the conversation from the list while the handler runs.
    part<HTMLButtonElement>(chat, 'list-button')!.click();
    (await until(() => part<HTMLButtonElement>(chat, 'delete-button'), 'the delete button')).click();
    (await until(() => part<HTMLButtonElement>(chat, 'confirm-delete'), 'the confirmation')).click();
    await until(() => parts(chat, 'conversation').length === 0, 'the row gone');
    part<HTMLButtonElement>(chat, 'list-button')!.click();
    await until(() => part(chat, 'empty'), 'a new, empty conversation');

    const sent: unknown[] = [];
    chat.addEventListener('svc-message-sent', (e) => sent.push(e.detail));
    finish({ added: true });
    await until(() => results.length === 1, 'the handler’s answer');
    await chat.updateComplete;
    // A send would be under way by now (the store counts it at once): none is.
    expect(chat.shadowRoot!.querySelector('svc-chat-panel')!.store!.running).to.equal(false);
    expect(sent).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    expect(part(chat, 'notice')).to.equal(null);
    expect(parts(chat, 'message')).to.have.length(0);
  });
});
