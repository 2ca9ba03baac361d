import { expect, nextFrame } from '@open-wc/testing';
import fc from 'fast-check';
import { Lexer } from 'marked';
import { StreamMarkdown } from '../../../src/elements/svc-markdown/stream-markdown.js';
import { service } from '../../helpers/browser-service.js';
import { markdownToHtml, sanitizeHtml, unboxed } from '../../helpers/markdown.js';

const { seed } = await service();

const FENCE = '```';

const FEATURES = `# Release notes

Intro with **bold**, _em_, \`code\`, ~~strike~~ and a [link](https://example.com "title").
Same paragraph, and an autolink https://example.org/path?q=1 and <https://example.net>.

## Lists

- one
- two
  - nested *a*
  - nested b
- three

1. first
2. second

   continued paragraph in the item

3. third

2
2. looks like a list
#
Heading-ish

- [ ] task open
- [x] task done

## Code

${FENCE}ts
const x = 1;


function f() {
  return x < 2 && "<b>";
}
${FENCE}

~~~
tilde fence
~~~

    indented code

    more indented

## Table

| Name | Qty | Note |
|:-----|----:|:----:|
| a    |   1 | x    |
| b    |  22 | \`y\`  |

> quote line
> continued
>
> - list in quote

Setext heading
==============

Paragraph then rule
---

***

Text with <kbd>Ctrl</kbd>, <b>bold</b> html, &amp; &copy; entities and a [bad](javascript:alert(1)) link.

<details>
<summary>More</summary>

Hidden *markdown* inside.

</details>

Final paragraph.
`;

const REFERENCES = `See [the docs][docs] and [Guide] and ![logo][img].

Paragraph two.

Paragraph three [inline](https://x.test).

- item [docs]

[docs]: https://docs.example.com "Docs"
[guide]: https://guide.example.com

[img]: https://img.example.com/logo.png

After the definitions, [docs] again.
`;

const UNBALANCED_HTML = [
  'Para with <b>bold that never closes',
  '',
  'next para',
  '',
  '<div>',
  '',
  'inside the div',
  '',
  '</div>',
  '',
  'A <span>closed</span> span.',
  '',
  'Last <i>one',
  '',
].join('\r\n');

/** Blocks without blank lines between them, and misnested or stray raw HTML. */
const TIGHT = `# Title
Text right under the title.
**Steps:**
- one
- two
Paragraph after a list.
> quote
## Next
| a | b |
|---|---|
| 1 | 2 |
Trailing text.

<b><i>misnested</b></i> tags

and </div> a stray end tag </p> here.

- item <em>opens

- next item

Done.
`;

/** A long reply: sections of every kind, repeated. */
const LONG = Array.from(
  { length: 40 },
  (_, i) => `## Part ${i}

Some text for part ${i}, with a [link](https://example.com/${i}) and \`code ${i}\`.

- point ${i}.1
- point ${i}.2

${FENCE}js
console.log(${i});
${FENCE}

| k | v |
|---|---|
| ${i} | ${i * 2} |
`,
).join('\n');

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `text` into pieces of 1 to `max` characters. */
function deltas(text: string, seed: number, max: number): string[] {
  const next = random(seed);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(next() * max);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/**
 * Runs of the property test: each renders a document of up to 12 blocks after every delta, about 30 ms in
 * Chromium and 45 ms in WebKit, so the whole test takes a few seconds even on a busy machine.
 */
const RUNS = 40;

/** Documents made of the blocks of those above (every kind, CRLF line ends and unbalanced HTML among them). */
const BLOCKS = [FEATURES, REFERENCES, UNBALANCED_HTML, TIGHT, LONG.slice(0, 600)].flatMap((text) =>
  text.split(/(?<=\n)(?:\r?\n)+/),
);
const documents = fc
  .array(fc.constantFrom(...BLOCKS), { minLength: 1, maxLength: 12 })
  .chain((blocks) => fc.constantFrom(blocks.join('\n'), blocks.join('')));

/** Splits `text` into deltas of the given sizes, taken in turn. */
function split(text: string, sizes: number[]): string[] {
  const pieces: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length];
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

const whole = (text: string) => sanitizeHtml(markdownToHtml(text));

/** Streams `text` in the given pieces, rendering after each, and returns the prefixes whose output differed. */
function mismatches(pieces: string[]): string[] {
  const target = document.createElement('div');
  const stream = new StreamMarkdown(target);
  const wrong: string[] = [];
  let prefix = '';
  for (const piece of pieces) {
    prefix += piece;
    stream.push(piece);
    stream.flush();
    if (unboxed(target) !== whole(prefix)) wrong.push(prefix);
  }
  stream.finish();
  if (unboxed(target) !== whole(prefix)) wrong.push(`${prefix} (after finish)`);
  return wrong;
}

/** Counts the characters marked's block lexer is given. */
function countLexedCharacters(): { readonly count: number; restore(): void } {
  const original = Lexer.prototype.lex;
  const counter = {
    count: 0,
    restore: () => {
      Lexer.prototype.lex = original;
    },
  };
  Lexer.prototype.lex = function (this: Lexer, src: string) {
    counter.count += src.length;
    return original.call(this, src);
  };
  return counter;
}

describe('StreamMarkdown', function () {
  // Most of these run synchronously, so they cannot hang; on a loaded machine they are only slower. The runner's
  // testsFinishTimeout still ends the one asynchronous test if it ever hangs.
  this.timeout(0);

  it('equals the whole rendering after every single character of a document with every block kind', () => {
    expect(mismatches([...FEATURES])).to.deep.equal([]);
  });

  it('equals the whole rendering after every character when link definitions arrive late', () => {
    expect(mismatches([...REFERENCES])).to.deep.equal([]);
  });

  it(`equals the whole rendering for random-sized deltas of random documents (${RUNS} runs, SVC_SEED=${seed})`, () => {
    fc.assert(
      fc.property(documents, fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1 }), (text, sizes) => {
        expect(mismatches(split(text, sizes))).to.deep.equal([]);
      }),
      { numRuns: RUNS, seed },
    );
  });

  it('equals the whole rendering after every character of blocks not separated by blank lines', () => {
    expect(mismatches([...TIGHT])).to.deep.equal([]);
  });

  it('keeps raw HTML that opens across blocks from splitting the output', () => {
    expect(mismatches(deltas(UNBALANCED_HTML, 7, 3))).to.deep.equal([]);
    const target = document.createElement('div');
    new StreamMarkdown(target).replace(UNBALANCED_HTML);
    // The unclosed <b> carries on over the next paragraph, as a browser parses the whole text.
    expect(target.querySelector('b > p')?.textContent).to.equal('next para');
  });

  it('keeps what a reader selected in the reply when the reply ends', () => {
    const target = document.createElement('div');
    document.body.append(target);
    try {
      const stream = new StreamMarkdown(target);
      for (const piece of deltas(LONG, 9, 12)) {
        stream.push(piece);
        stream.flush();
      }
      const heading = target.querySelector('h2')!;
      getSelection()!.selectAllChildren(heading);
      stream.finish();
      expect(unboxed(target)).to.equal(whole(LONG));
      // Settled blocks are not rendered again at the end: the selection still holds the heading's text.
      expect(getSelection()!.toString()).to.equal('Part 0');
      expect(target.querySelector('h2')).to.equal(heading);
    } finally {
      getSelection()!.removeAllRanges();
      target.remove();
    }
  });

  it('adds words to the live tail in place, so what a reader selected in it stays selected', () => {
    const target = document.createElement('div');
    document.body.append(target);
    try {
      const stream = new StreamMarkdown(target);
      stream.push('# Title\n\nA list:\n\n- one **bold** item\n- two');
      stream.flush();
      const item = target.querySelectorAll('li')[1]!;
      getSelection()!.selectAllChildren(target.querySelector('strong')!);
      for (const piece of deltas(" words, then more words: it's added to the second item.", 3, 5)) {
        stream.push(piece);
        stream.flush();
        expect(unboxed(target)).to.equal(whole(stream.text));
      }
      expect(target.querySelectorAll('li')[1]).to.equal(item);
      expect(getSelection()!.toString()).to.equal('bold');
      stream.push('\n\n```js\nconst a = 1;');
      stream.flush();
      const code = target.querySelector('code')!;
      // Code's `<`, `&` and quotes are text too (escaped by marked), not raw HTML: still added in place.
      for (const piece of deltas('\nconst b = 2;\nif (a < b && b > 0) log("<b>");', 4, 5)) {
        stream.push(piece);
        stream.flush();
        expect(unboxed(target)).to.equal(whole(stream.text));
      }
      expect(target.querySelector('code')).to.equal(code);
    } finally {
      getSelection()!.removeAllRanges();
      target.remove();
    }
  });

  it('ends equal to the whole rendering when raw HTML in a later block parses differently on its own', () => {
    // On its own, a part that starts with a comment or <script> puts them (and the line break after
    // them) in the parsed document's head: while streaming, a line break goes missing.
    const text = [
      'Intro.',
      'More.',
      'And more.',
      '<!-- note -->\n<div>a</div>',
      '<script>first()</script>\n<script>second()</script>',
      'End.',
      'Last.',
    ].join('\n\n');
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    for (const piece of text) {
      stream.push(piece);
      stream.flush();
    }
    stream.finish();
    expect(unboxed(target)).to.equal(whole(text));
  });

  it('keeps the line break after a stray end tag that starts a later block', () => {
    // Parsed on its own outside a body, such a block would lose the line break after the tag.
    expect(mismatches([...'# Title\n\n[docs]: https://docs.example.com\n\n</details>\n\n# Next\n'])).to.deep.equal([]);
  });

  it('appends settled blocks once and keeps their nodes while the reply grows', () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    stream.push('First paragraph.\n\nSecond.\n\nThird.\n\n');
    stream.flush();
    const first = target.querySelector('p')!;
    for (const piece of deltas(LONG, 4, 40)) {
      stream.push(piece);
      stream.flush();
    }
    expect(target.querySelector('p')).to.equal(first);
  });

  it('puts settled blocks in boxes that the growing tail does not touch, and a text rendered whole in none', () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    for (const piece of deltas(LONG.repeat(2), 4, 40)) {
      stream.push(piece);
      stream.flush();
    }
    const boxes = [...target.children].filter((child) => child.classList.contains('settled'));
    // Several boxes of about 2,000 characters, before the live tail, which is in none.
    expect(boxes.length).to.be.greaterThan(1);
    expect(target.lastElementChild!.classList.contains('settled')).to.equal(false);
    const first = boxes[0]!.firstElementChild;
    stream.push('\n\nMore text at the end.');
    stream.flush();
    expect(target.querySelector('.settled')!.firstElementChild).to.equal(first);
    stream.replace(LONG);
    expect(target.querySelector('.settled')).to.equal(null);
  });

  it('lexes a long reply about once over, not once per delta', () => {
    const text = LONG.repeat(3);
    const pieces = deltas(text, 5, 8);
    const lexed = countLexedCharacters();
    try {
      const target = document.createElement('div');
      const stream = new StreamMarkdown(target);
      for (const piece of pieces) {
        stream.push(piece);
        stream.flush();
      }
      stream.finish();
      expect(unboxed(target)).to.equal(whole(text));
    } finally {
      lexed.restore();
    }
    // Re-lexing the whole text per delta would be about pieces × length / 2 characters: here ~100 times more.
    expect(pieces.length).to.be.greaterThan(4000);
    expect(lexed.count).to.be.lessThan(text.length * 20);
  });

  it('renders at most once per animation frame however many deltas arrive', async () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    const lexed = countLexedCharacters();
    try {
      for (const piece of deltas('Hello **streaming** world.\n\nMore text.', 6, 3)) stream.push(piece);
      expect(unboxed(target)).to.equal('');
      await nextFrame();
      expect(lexed.count).to.equal(stream.text.length);
    } finally {
      lexed.restore();
    }
    expect(unboxed(target)).to.equal(whole(stream.text));
  });

  it('catches up at every frame, or at most as often as its interval allows, whatever the frame rate', () => {
    const { requestAnimationFrame: request, cancelAnimationFrame: cancel } = window;
    let due: FrameRequestCallback | undefined;
    window.requestAnimationFrame = (callback) => {
      due = callback;
      return 1;
    };
    window.cancelAnimationFrame = () => {
      due = undefined;
    };
    try {
      for (const interval of [undefined, 1000 / 30]) {
        for (const hz of [60, 120, 30]) {
          const target = document.createElement('div');
          const stream = new StreamMarkdown(target, { interval });
          let shown = '';
          let catchUps = 0;
          // One second of frames, a word arriving before each.
          for (let frame = 0; frame < hz; frame++) {
            stream.push(`word${frame} `);
            const callback = due;
            due = undefined;
            callback?.((frame * 1000) / hz);
            if (target.textContent !== shown) catchUps++;
            shown = target.textContent ?? '';
            // The first word shows in the first frame after it came.
            if (frame === 0) expect(shown.trim()).to.equal('word0');
          }
          expect(catchUps, `at ${hz} Hz, interval ${interval}`).to.equal(interval ? Math.min(hz, 30) : hz);
          stream.finish();
          expect(unboxed(target)).to.equal(whole(stream.text));
        }
      }
    } finally {
      window.requestAnimationFrame = request;
      window.cancelAnimationFrame = cancel;
    }
  });

  it('joins a CRLF line break split across two deltas', () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    for (const piece of ['line one\r', '\nline two\r', '\n\r\n# Title']) stream.push(piece);
    stream.flush();
    expect(stream.text).to.equal('line one\nline two\n\n# Title');
    expect(unboxed(target)).to.equal(whole('line one\r\nline two\r\n\r\n# Title'));
  });

  it('replaces the text and renders it whole', () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target);
    stream.push('old text\n\nold\n\nold\n\nold');
    stream.flush();
    stream.replace('# New');
    expect(unboxed(target)).to.equal(whole('# New'));
    expect(stream.text).to.equal('# New');
  });

  it('passes every sanitized fragment through decorate before inserting it', () => {
    const target = document.createElement('div');
    const stream = new StreamMarkdown(target, {
      decorate: (fragment) => {
        for (const pre of fragment.querySelectorAll('pre')) pre.dataset.seen = '';
      },
    });
    for (const piece of deltas(LONG, 8, 30)) {
      stream.push(piece);
      stream.flush();
    }
    const blocks = target.querySelectorAll('pre');
    expect(blocks.length).to.equal(40);
    expect([...blocks].every((pre) => pre.hasAttribute('data-seen'))).to.equal(true);
  });
});
