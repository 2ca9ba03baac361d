/** The mocha globals @web/test-runner provides to browser tests (typed here: @types/mocha is not installed). */

interface MochaContext {
  timeout(ms: number): void;
  /** In hooks: the test the hook runs for, with its error once it failed. */
  currentTest?: { title: string; err?: Error };
}

type MochaBody = (this: MochaContext) => unknown;

declare function describe(title: string, body: (this: MochaContext) => void): void;
declare function it(title: string, body: MochaBody): void;
declare function before(body: MochaBody): void;
declare function after(body: MochaBody): void;
declare function beforeEach(body: MochaBody): void;
declare function afterEach(body: MochaBody): void;
