import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../src/elements/svc-markdown.js';
import { markdownToHtml } from '../../src/elements/markdown/marked.js';
import type { SvcMarkdown } from '../../src/elements/svc-markdown.js';
import { loadsSettled } from '../helpers/loads.js';

interface Vector {
  source: string;
  mode: string;
  payload: string;
}

/** Elements that must never reach the page. */
const FORBIDDEN = new Set(
  'script iframe frame frameset object embed applet form input button select textarea svg math base meta link style template'.split(
    ' ',
  ),
);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'xlink:href', 'formaction', 'poster', 'background', 'data']);
const SCRIPT_URL = /^(?:javascript|data|vbscript):/i;

// Read through the prototypes: a payload's <input name="attributes"> clobbers the properties of its form.
const { getAttribute, getAttributeNames } = Element.prototype;
const localName = Object.getOwnPropertyDescriptor(Element.prototype, 'localName')!.get!;

/** What is dangerous in a rendered tree: everything that could run script, restyle the page or leak. */
function dangers(root: ParentNode): string[] {
  const found: string[] = [];
  for (const el of root.querySelectorAll('*')) {
    const tag = localName.call(el) as string;
    const attribute = (name: string) => getAttribute.call(el, name);
    const ownCopyButton = tag === 'button' && attribute('part') === 'copy';
    if (FORBIDDEN.has(tag) && !ownCopyButton) found.push(`<${tag}>`);
    for (const name of getAttributeNames.call(el)) {
      if (name.startsWith('on')) found.push(`${tag}[${name}]`);
      if (name === 'style') found.push(`${tag}[style]`);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL parser ignores control characters.
      if (URL_ATTRIBUTES.has(name) && SCRIPT_URL.test(attribute(name)!.replace(/[\u0000-\u0020]/g, ''))) {
        found.push(`${tag}[${name}=${attribute(name)!.slice(0, 20)}]`);
      }
    }
    if (tag === 'a' && (attribute('target') !== '_blank' || attribute('rel') !== 'noopener noreferrer')) {
      found.push('<a> without target=_blank rel="noopener noreferrer"');
    }
  }
  return found;
}

/** The dangers of the raw marked output, parsed where nothing runs or loads (as DOMPurify parses). */
function unsanitizedDangers(payload: string): string[] {
  const inert = new DOMParser().parseFromString(markdownToHtml(payload), 'text/html');
  return dangers(inert).filter((danger) => !danger.startsWith('<a> without'));
}

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits a payload into 1 to 6 pieces at random places, so partial tags get rendered too. */
function pieces(payload: string, next: () => number): string[] {
  const cuts = Array.from({ length: Math.floor(next() * 6) }, () => Math.floor(next() * payload.length)).sort(
    (a, b) => a - b,
  );
  return [0, ...cuts].map((cut, i, all) => payload.slice(cut, all[i + 1])).filter(Boolean);
}

/** Counts what executed payloads do: dialogs and the global flag our own vectors set. */
const executions = { dialogs: 0 };
const win = window as unknown as Record<string, unknown>;
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  win[name] = () => {
    executions.dialogs++;
  };
}

const base = (el: SvcMarkdown) => el.shadowRoot!.querySelector('[part=base]')!;

describe('XSS vectors through <svc-markdown>', function () {
  this.timeout(60_000);
  let vectors: Vector[] = [];

  before(async () => {
    const response = await fetch(new URL('../fixtures/xss-vectors.json', import.meta.url));
    vectors = ((await response.json()) as { vectors: Vector[] }).vectors;
  });

  beforeEach(() => {
    executions.dialogs = 0;
    win.__xssFlag = undefined;
  });

  it('covers every corpus source and at least 300 corpus vectors plus our own markdown vectors', () => {
    const sources = new Set(vectors.map((v) => v.source));
    expect(vectors.filter((v) => v.source !== 'svc-markdown').length).to.be.at.least(300);
    expect(vectors.filter((v) => v.source === 'svc-markdown').length).to.be.at.least(40);
    for (const source of ['dompurify-expect', 'h5sc', 'owasp-evasion', 'payloadbox', 'patt:XSS_Polyglots.txt']) {
      expect(sources.has(source), source).to.equal(true);
    }
  });

  it('detects the payloads when they are not sanitized (positive control)', async () => {
    const flagged = vectors.filter((v) => unsanitizedDangers(v.payload).length > 0);
    expect(flagged.length).to.be.greaterThan(vectors.length / 2);

    // The execution counters work: raw payloads rendered live do run.
    const live = await fixture<HTMLDivElement>(html`<div></div>`);
    live.innerHTML = markdownToHtml('<img src="data:,broken" onerror="alert(1); window.__xssFlag = 1">');
    await oneEvent(live.querySelector('img')!, 'error');
    expect(executions.dialogs).to.equal(1);
    expect(win.__xssFlag).to.equal(1);
  });

  it('leaves nothing dangerous and runs nothing, rendered whole or streamed', async () => {
    const next = random(42);
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    const whole = vectors.map((v) => {
      const el = document.createElement('svc-markdown');
      el.text = v.payload;
      return el;
    });
    const streamed = vectors.map(() => document.createElement('svc-markdown'));
    host.append(...whole, ...streamed);
    await Promise.all([...whole, ...streamed].map((el) => el.updateComplete));
    const queues = vectors.map((v) => pieces(v.payload, next));
    const problems: string[] = [];
    const check = (els: SvcMarkdown[], how: string) =>
      els.forEach((el, i) => {
        for (const danger of dangers(base(el))) problems.push(`${how} #${i} (${vectors[i].source}): ${danger}`);
      });

    check(whole, 'whole');
    // Every vector streams at once, a piece per frame, and is checked after every frame.
    while (queues.some((queue) => queue.length)) {
      for (const [i, queue] of queues.entries()) if (queue.length) streamed[i].append(queue.shift()!);
      await nextFrame();
      check(streamed, 'streaming');
    }
    for (const el of streamed) el.finish();
    check(streamed, 'streamed');
    // Whatever a surviving payload could run on (load and error events) has had its turn.
    await loadsSettled(host);

    expect(problems).to.deep.equal([]);
    expect(executions.dialogs).to.equal(0);
    expect(win.__xssFlag).to.equal(undefined);
    expect(streamed.map((el) => base(el).innerHTML)).to.deep.equal(whole.map((el) => base(el).innerHTML));
  });
});
