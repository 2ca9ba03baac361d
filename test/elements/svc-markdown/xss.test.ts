import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-markdown/svc-markdown.js';
import type { SvcMarkdown } from '../../../src/elements/svc-markdown/svc-markdown.js';
import { contentDangers, UNSAFE_LINK } from '../../helpers/dangers.js';
import { loadsSettled } from '../../helpers/loads.js';
import { markdownToHtml } from '../../helpers/markdown.js';

interface Vector {
  source: string;
  mode: string;
  payload: string;
}

/** The dangers of the raw marked output, parsed where nothing runs or loads (as DOMPurify parses). */
function unsanitizedDangers(payload: string): string[] {
  const inert = new DOMParser().parseFromString(markdownToHtml(payload), 'text/html');
  return contentDangers(inert).filter((danger) => !danger.endsWith(UNSAFE_LINK));
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
    const response = await fetch(new URL('../../fixtures/xss-vectors.json', import.meta.url));
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
        for (const danger of contentDangers(base(el))) problems.push(`${how} #${i} (${vectors[i].source}): ${danger}`);
      });

    check(whole, 'whole');
    // Every vector streams at once, a piece per frame, and is checked after every frame.
    while (queues.some((queue) => queue.length)) {
      for (const [i, queue] of queues.entries()) if (queue.length) streamed[i].appendText(queue.shift()!);
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
