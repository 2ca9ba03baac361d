import { expect, fixture, html, nextFrame } from '@open-wc/testing';
import { render } from 'lit';
import '../../../src/elements/svc-markdown/svc-markdown.js';
import { markdownText } from '../../../src/elements/svc-markdown/markdown-text.js';
import type { SvcMarkdown } from '../../../src/elements/svc-markdown/svc-markdown.js';
import { markdownToHtml, sanitizeHtml, unboxed } from '../../helpers/markdown.js';

const REPLY = Array.from({ length: 12 }, (_, i) => `## Step ${i}\n\nDo thing ${i}, then **check** it.\n`).join('\n');

/** A message row's markdown as the chat renders it: the message's text so far, and whether it streams. */
function show(host: HTMLElement, text: string, streaming: boolean): SvcMarkdown {
  render(html`<svc-markdown ${markdownText(text, streaming)}></svc-markdown>`, host);
  return host.querySelector('svc-markdown')!;
}

const base = (el: SvcMarkdown) => el.shadowRoot!.querySelector<HTMLElement>('[part=base]')!;

describe('markdownText()', () => {
  afterEach(() => getSelection()!.removeAllRanges());

  it('ends a reply whose final text brings its last deltas without rendering the reply again', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const end = REPLY.length - 7;
    let el = show(host, '', true);
    // The renderer loads on first use: streamed text is markdown once it is there.
    await el.updateComplete;
    for (let at = 0; at < end; at += 40) {
      el = show(host, REPLY.slice(0, Math.min(at + 40, end)), true);
      await nextFrame();
    }
    const heading = base(el).querySelector('h2')!;
    getSelection()!.selectAllChildren(heading);

    // The final record came in the same network read as the last deltas.
    show(host, REPLY, false);

    expect(unboxed(base(el))).to.equal(sanitizeHtml(markdownToHtml(REPLY)));
    await el.updateComplete;
    expect(el.hasAttribute('streaming')).to.equal(false);
    // What the reader selected in the reply is still selected.
    expect(getSelection()!.toString()).to.equal('Step 0');
    expect(base(el).querySelector('h2')).to.equal(heading);
  });

  it('renders a final text that differs from what streamed in whole', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    let el = show(host, '', true);
    await el.updateComplete;
    for (let at = 40; at < REPLY.length; at += 40) {
      el = show(host, REPLY.slice(0, at), true);
      await nextFrame();
    }
    const corrected = `# Corrected\n\n${REPLY}`;
    show(host, corrected, false);
    expect(unboxed(base(el))).to.equal(sanitizeHtml(markdownToHtml(corrected)));
  });
});
