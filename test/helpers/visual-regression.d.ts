/**
 * The browser side of @web/test-runner-visual-regression: its own types are a `.d.ts` beside an `.mjs` entry,
 * which TypeScript's NodeNext resolution does not pair, so they are declared here.
 */
declare module '@web/test-runner-visual-regression' {
  /** Screenshots `element` and hands it to the plugin (web-test-runner.config.mjs saves it). */
  export function visualDiff(element: Element, name: string): Promise<void>;
}
