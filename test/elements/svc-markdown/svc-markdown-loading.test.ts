import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-markdown/svc-markdown.js';

/**
 * Runs in a page of its own (one per test file), so the markdown renderer has not loaded when the first
 * element is made: what a reader sees while it loads, and how a reply that is streaming goes on.
 */
describe('<svc-markdown> while its renderer loads', () => {
  it('shows streamed text as plain text at once, then the same text rendered, and streams on', async () => {
    const el = await fixture<HTMLDivElement>(html`<div></div>`).then((host) => {
      const markdown = document.createElement('svc-markdown');
      host.append(markdown);
      return markdown;
    });
    el.appendText('Hello **wor');
    el.appendText('ld** <img src=x onerror="window.__ran = 1">\n\n');
    // The element's first render runs in a microtask; the renderer's module takes a request.
    for (let i = 0; i < 10 && !el.shadowRoot?.querySelector('[part=base]'); i++) await null;
    const root = el.shadowRoot!.querySelector('[part=base]')!;
    // Not rendered yet, but readable, and never parsed as HTML.
    expect(root.textContent).to.equal('Hello **world** <img src=x onerror="window.__ran = 1">\n\n');
    expect(root.querySelector('strong, img')).to.equal(null);

    await el.updateComplete;
    expect(root.querySelector('strong')!.textContent).to.equal('world');
    expect(el.streaming).to.equal(true);

    el.appendText('- one\n- two\n');
    el.finish();
    expect([...root.querySelectorAll('li')].map((li) => li.textContent)).to.deep.equal(['one', 'two']);
    expect(root.querySelector('strong')!.textContent).to.equal('world');
    expect(el.text).to.equal('Hello **world** <img src=x onerror="window.__ran = 1">\n\n- one\n- two\n');
    expect((window as { __ran?: number }).__ran).to.equal(undefined);
  });

  it('renders at once once the renderer is there', async () => {
    const el = document.createElement('svc-markdown');
    el.text = '# Title';
    expect(el.renderRoot).to.equal(undefined);
    document.body.append(el);
    await el.updateComplete;
    el.text = '*now*';
    expect(el.shadowRoot!.querySelector('[part=base] em')!.textContent).to.equal('now');
    el.remove();
  });
});
