import type { AxeResults, Result } from 'axe-core';
// The UMD build registers `window.axe` when loaded as a plain script (it has no ES module build).
import 'axe-core/axe.min.js';

declare global {
  interface Window {
    axe: typeof import('axe-core');
  }
}

/** The WCAG 2.2 AA rules (with the A and 2.0/2.1 rules they build on) the widget is held to. */
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** One line per violation and node: the rule, the impact, where (through shadow roots) and why. */
export function describeViolations(violations: Result[]): string {
  return violations
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}): ${JSON.stringify(node.target)} ${node.failureSummary?.replace(/\s+/g, ' ')}`,
      ),
    )
    .join('\n');
}

/**
 * Runs axe-core over `context` (an element, its shadow roots included, or the whole document) at WCAG 2.2 AA
 * and returns what it found. axe runs one analysis at a time per page, so calls are queued.
 */
let queue: Promise<unknown> = Promise.resolve();
export function axeViolations(context: Element | Document = document): Promise<Result[]> {
  const run = queue.then(async () => {
    const results: AxeResults = await window.axe.run(context, {
      runOnly: { type: 'tag', values: WCAG_22_AA },
      resultTypes: ['violations'],
    });
    return results.violations;
  });
  queue = run.catch(() => {});
  return run;
}

/**
 * Resolves once the animations that end (a panel rising into view) have ended in `context` and the shadow
 * roots inside it: colors measured halfway through a fade are not the ones a visitor reads. An endless one
 * would never end, so it is left running.
 */
export async function animationsEnded(context: Element | Document): Promise<void> {
  const roots: (Document | ShadowRoot)[] = context instanceof Document ? [context] : [];
  const visit = (element: Element) => {
    if (element.shadowRoot) roots.push(element.shadowRoot);
    for (const child of element.shadowRoot?.querySelectorAll('*') ?? []) visit(child);
  };
  for (const element of context instanceof Document
    ? context.querySelectorAll('*')
    : [context, ...context.querySelectorAll('*')]) {
    visit(element);
  }
  const ending = roots
    .flatMap((root) => root.getAnimations())
    .filter((animation) => animation.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY);
  await Promise.all(ending.map((animation) => animation.finished));
}

/**
 * Fails with every violation axe finds in `context`, named by `state` (the visitor's situation checked),
 * once its animations have ended. The widget is held to zero: a violation is fixed in the product, never
 * switched off here.
 */
export async function expectAccessible(context: Element | Document, state: string): Promise<void> {
  await animationsEnded(context);
  const violations = await axeViolations(context);
  if (violations.length) {
    throw new Error(`axe found ${violations.length} violation(s) in "${state}":\n${describeViolations(violations)}`);
  }
}

/** Checks `el` (a chat, or a card with a theme of its own) in the light theme and in the dark one, then puts its
 * theme back. */
export async function expectAccessibleInBothThemes(
  el: HTMLElement & { theme?: string; updateComplete: Promise<boolean> },
  state: string,
): Promise<void> {
  const theme = el.theme;
  for (const each of ['light', 'dark']) {
    el.theme = each;
    await el.updateComplete;
    await expectAccessible(el, `${state}, ${each}`);
  }
  el.theme = theme;
  await el.updateComplete;
}
