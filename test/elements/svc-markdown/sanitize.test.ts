import { expect } from '@open-wc/testing';
import DOMPurify from 'dompurify';
import { sanitizeFragment } from '../../../src/elements/svc-markdown/sanitize.js';
import { imageAllowed } from '../../../src/internal/safe-url.js';
import { sanitizeHtml } from '../../helpers/markdown.js';

/** The sanitized HTML as a detached tree, to query. */
function tree(html: string, imageHosts?: string[]): HTMLElement {
  const root = document.createElement('div');
  root.append(sanitizeFragment(html, { imageAllowed: imageHosts && ((src) => imageAllowed(src, imageHosts)) }));
  return root;
}

describe('sanitizeHtml', () => {
  it('keeps what markdown produces', () => {
    const html =
      '<h2>T</h2><p><strong>b</strong> <em>i</em> <del>d</del> <code>c</code></p><ul><li>x</li></ul>' +
      '<ol start="3"><li>y</li></ol><blockquote><p>q</p></blockquote><pre><code class="language-js">z\n</code></pre>' +
      '<table><thead><tr><th align="right">h</th></tr></thead><tbody><tr><td align="center">v</td></tr></tbody></table><hr>';
    expect(sanitizeHtml(html)).to.equal(html);
  });

  it('removes style elements and style attributes', () => {
    const root = tree('<style>p{color:red}</style><p style="position:fixed">x</p><span style="color:red">y</span>');
    expect(root.querySelector('style, [style]')).to.equal(null);
    expect(root.textContent).to.equal('xy');
  });

  it('removes forms and their controls', () => {
    const root = tree(
      '<form action="https://evil.example"><input name="q"><button>Go</button><select><option>1</option></select>' +
        '<textarea>t</textarea></form>',
    );
    expect(root.querySelector('form, input, button, select, option, textarea')).to.equal(null);
  });

  it('removes frames, plugins, svg and math', () => {
    const root = tree(
      '<iframe src="https://a.example"></iframe><object data="https://a.example/x"></object>' +
        '<embed src="https://a.example/y"><svg><circle r="1"/></svg><math><mi>x</mi></math><p>kept</p>',
    );
    expect(root.querySelector('iframe, object, embed, svg, math, circle, mi')).to.equal(null);
    expect(root.querySelector('p')!.textContent).to.equal('kept');
  });

  it('removes scripts and event handler attributes', () => {
    const root = tree(
      '<script>alert(1)</script><img src="https://a.example/i.png" onerror="alert(1)"><p onclick="x()">p</p>',
    );
    expect(root.querySelector('script')).to.equal(null);
    expect(root.innerHTML).not.to.contain('on');
    expect(root.querySelector('img')!.getAttribute('src')).to.equal('https://a.example/i.png');
  });

  it('keeps absolute http(s), mailto and fragment URLs only', () => {
    const kept = ['https://a.example/x', 'http://a.example/', 'mailto:me@a.example', '#section', 'HTTPS://A.EXAMPLE/'];
    const spaced = tree('<a href=" https://a.example/\n">l</a>').querySelector('a')!;
    expect(spaced.href).to.equal('https://a.example/');
    const refused = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'java&#x09;script:alert(1)',
      '&#106;avascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'data:image/png;base64,AAAA',
      'file:///etc/passwd',
      'ftp://a.example/',
      '/relative/path',
      'relative.html',
      '//evil.example/x',
      '?q=1',
      'http: //evil.example/x',
      'https:/evil.example',
    ];
    for (const url of kept) {
      expect(tree(`<a href="${url}">l</a>`).querySelector('a')!.getAttribute('href'), url).to.equal(url);
    }
    for (const url of refused) {
      const root = tree(`<a href="${url}">l</a><img src="${url}" alt="i">`);
      expect(root.querySelector('a')!.hasAttribute('href'), url).to.equal(false);
      expect(root.querySelector('img')!.hasAttribute('src'), url).to.equal(false);
    }
  });

  it('prefixes ids and names against DOM clobbering', () => {
    const root = tree('<h2 id="cookie">t</h2><a name="location">a</a>');
    expect(root.querySelector('h2')!.id).to.equal('user-content-cookie');
    expect(root.querySelector('a')!.getAttribute('name')).to.equal('user-content-location');
  });

  it('drops data attributes and attributes markdown does not need', () => {
    const root = tree('<p data-x="1" contenteditable="true" tabindex="0" hidden draggable="true">p</p>');
    expect(root.querySelector('p')!.attributes.length).to.equal(0);
  });

  it('opens every link in a new tab without giving it the opener or referrer', () => {
    const root = tree(
      '<a href="https://a.example">one</a><a href="https://b.example" target="_self" rel="opener">two</a><a>three</a>',
    );
    for (const link of root.querySelectorAll('a')) {
      expect(link.getAttribute('target')).to.equal('_blank');
      expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
    }
  });

  it('loads images from any http(s) host when no allowlist is given', () => {
    expect(tree('<img src="https://any.example/a.png" alt="a">').querySelector('img')).not.to.equal(null);
  });

  it('turns images from hosts outside the allowlist into links', () => {
    const root = tree(
      '<img src="https://evil.example/?q=secret" alt="chart"><img src="https://IMG.example/ok.png" alt="ok">' +
        '<img src="https://evil.example/x.png">',
      ['img.example'],
    );
    const images = root.querySelectorAll('img');
    expect(images.length).to.equal(1);
    expect(images[0].getAttribute('src')).to.equal('https://IMG.example/ok.png');
    const links = [...root.querySelectorAll('a')];
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).to.deep.equal([
      ['chart', 'https://evil.example/?q=secret'],
      ['https://evil.example/x.png', 'https://evil.example/x.png'],
    ]);
    expect(links.every((link) => link.target === '_blank' && link.rel === 'noopener noreferrer')).to.equal(true);
  });

  it('leaves the global DOMPurify instance unconfigured for the host page', () => {
    sanitizeHtml('<a href="https://a.example">x</a>');
    expect(DOMPurify.sanitize('<a href="https://a.example">x</a>')).to.equal('<a href="https://a.example">x</a>');
    expect(DOMPurify.sanitize('<a href="/relative">x</a>')).to.equal('<a href="/relative">x</a>');
  });

  it('gives nodes to insert, so no HTML string sink is needed where the browser enforces Trusted Types', () => {
    const fragment = sanitizeFragment('<p onclick="x()">hi</p>');
    expect(fragment).to.be.instanceOf(DocumentFragment);
    const holder = document.createElement('div');
    holder.append(fragment);
    expect(holder.innerHTML).to.equal('<p>hi</p>');
  });
});
