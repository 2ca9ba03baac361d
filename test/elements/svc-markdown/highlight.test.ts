import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-markdown/svc-markdown.js';
import type { SvcMarkdown } from '../../../src/elements/svc-markdown/svc-markdown.js';
import { PLATFORM_DARK_TOKENS, PLATFORM_TOKENS, tokenStyle } from '../../../src/theme/tokens.js';
import { until } from '../../helpers/browser-service.js';

/** Highlighted code (issue 30): tokens coloured from the theme, the highlighter loaded only for code, code kept text. */

const FENCE = '```';
const JS = `${FENCE}js\nconst answer = "forty-two"; // the answer\nfunction ask() { return 42; }\n${FENCE}\n`;

const base = (el: SvcMarkdown) => el.shadowRoot!.querySelector<HTMLElement>('[part=base]')!;
/** The requests for the highlighter's module, once each has been answered. */
const highlighterRequests = () =>
  performance.getEntriesByType('resource').filter((entry) => /svc-markdown\/highlight\.(ts|js)/.test(entry.name));

/** An element with the tokens of a theme declared on it, as `theme` (or CHAT_CSS) declares them. */
async function themed(tokens: typeof PLATFORM_TOKENS, text: string): Promise<SvcMarkdown> {
  const el = await fixture<SvcMarkdown>(html`<svc-markdown></svc-markdown>`);
  for (const [name, value] of Object.entries(tokenStyle(tokens))) el.style.setProperty(name, value);
  el.text = text;
  await el.updateComplete;
  return el;
}

const rgb = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`;
};

describe('highlighted code', () => {
  // First in the file: the page has loaded nothing of the highlighter yet.
  it('loads the highlighter only once a code block appears', async () => {
    // Rendered without a code block: a render that needs the highlighter asks for it there and then.
    const el = await themed(PLATFORM_TOKENS, '# Plan\n\nNo code here, only `inline` code.\n');
    expect(base(el).querySelector('h1')?.textContent, 'the text rendered').to.equal('Plan');
    const codeShown = performance.now();
    el.text = JS;
    await until(() => base(el).querySelector('pre code span'), 'highlighted tokens');
    // The one request for it (the detector sees it) was made once the code block was there, not before.
    const requests = highlighterRequests();
    expect(requests.map((entry) => entry.startTime >= codeShown)).to.deep.equal([true]);
  });

  for (const [theme, tokens] of [
    ['light', PLATFORM_TOKENS],
    ['dark', PLATFORM_DARK_TOKENS],
  ] as const) {
    it(`colours a fenced js block's tokens from the ${theme} theme's tokens`, async () => {
      const el = await themed(tokens, `Here:\n\n${JS}`);
      const code = await until(() => base(el).querySelector('pre code:has(span)'), 'highlighted tokens');
      const colorOf = (text: string) => {
        const span = [...code.querySelectorAll('span')].find((s) => s.textContent === text);
        expect(span, `a token "${text}"`).to.exist;
        return getComputedStyle(span!).color;
      };
      expect(colorOf('const')).to.equal(rgb(tokens.colorPrimary));
      expect(colorOf('"forty-two"')).to.equal(rgb(tokens.colorSuccess));
      expect(colorOf('42')).to.equal(rgb(tokens.colorDanger));
      expect(colorOf('ask')).to.equal(rgb(tokens.colorLink));
      expect(getComputedStyle(code.querySelector('.tok-cmnt')!).color).to.equal(rgb(tokens.colorMuted));
      // The code's text is unchanged, and the copy button copies it plain.
      expect(code.textContent).to.equal('const answer = "forty-two"; // the answer\nfunction ask() { return 42; }\n');
      expect(el.shadowRoot!.querySelector('[part=copy]')!.nextElementSibling!.textContent).to.equal(code.textContent);
    });
  }

  it('highlights a streamed code block once it has settled or the turn ends, not the growing tail', async () => {
    const el = await themed(PLATFORM_TOKENS, '');
    el.appendText('Intro\n\n```python\ndef f():\n    return 1\n');
    // The growing tail is rendered, its code as plain text. The highlighter is here already (the tests above
    // loaded it), so a block it was given would have its tokens in this same render.
    const tail = await until(() => base(el).querySelector('pre code'), 'the tail rendered');
    expect(tail.textContent).to.contain('return 1');
    expect(base(el).querySelector('pre code span'), 'the live tail highlighted').to.equal(null);
    el.appendText('```\n');
    el.finish();
    await until(() => base(el).querySelector('pre code span.tok-kwd'), 'highlighted python');
  });

  it("keeps a hostile code block's content as text", async () => {
    (window as unknown as { pwned?: boolean }).pwned = false;
    const hostile =
      '<img src=x onerror="window.pwned=true"></span><script>window.pwned=true</script>' +
      '<a href="javascript:window.pwned=true">x</a> "</code></pre><iframe src="javascript:1"></iframe>';
    const el = await themed(
      PLATFORM_TOKENS,
      `${FENCE}html\n${hostile}\n${FENCE}\n\n${FENCE}js\n${hostile}\n${FENCE}\n`,
    );
    const codes = await until(() => {
      const all = [...base(el).querySelectorAll('pre code')];
      return all.length === 2 && all.every((code) => code.querySelector('span')) ? all : undefined;
    }, 'both blocks highlighted');
    for (const code of codes) {
      expect(code.textContent).to.equal(`${hostile}\n`);
      expect(code.querySelector('img, script, a, iframe, code, pre')).to.equal(null);
      for (const span of code.querySelectorAll('*')) {
        expect(span.localName).to.equal('span');
        expect([...span.attributes].map((a) => a.name)).to.deep.equal(['class']);
      }
    }
    expect(base(el).querySelectorAll('img, script, iframe, a').length).to.equal(0);
    // A positive control: the same payload made by the page itself, outside the markdown, does run (an image
    // that fails to load fires `error`). Once it has, a payload that survived in the code would have too.
    const control = document.createElement('div');
    control.innerHTML = '<img src="data:image/png;base64,bm90IGFuIGltYWdl" onerror="window.controlRan = true">';
    // Heard after the image's own handler, which was set first.
    await new Promise((resolve) => control.querySelector('img')!.addEventListener('error', resolve));
    expect((window as unknown as { controlRan?: boolean }).controlRan, 'the control ran').to.equal(true);
    expect((window as unknown as { pwned?: boolean }).pwned).to.equal(false);
  });
});
