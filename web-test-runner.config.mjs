import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher, puppeteerCore } from '@web/test-runner-chrome';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import {
  chromiumLaunchOptions,
  firefoxLaunchOptions,
  selectedEngines,
  startWebKitDriver,
  webkitCapabilities,
} from './test/helpers/browsers.mjs';
import { svcServicePlugin, tokenUnavailable } from './test/helpers/wtr-service.mjs';

/**
 * WebKitGTK through its WebDriver, started (with its virtual display) when the run starts and stopped after it.
 * One session, one test file at a time: the driver serves one session, and a file runs in the top window.
 */
class WebKitLauncher extends WebdriverLauncher {
  concurrency = 1;
  #driver;

  constructor() {
    super({ automationProtocol: 'webdriver', path: '/', capabilities: webkitCapabilities() });
  }

  async initialize(config, testFiles) {
    this.#driver = await startWebKitDriver();
    Object.assign(this.options, { hostname: this.#driver.hostname, port: this.#driver.port });
    await super.initialize({ ...config, concurrency: 1 }, testFiles);
    this.name = 'WebKit';
  }

  async stop() {
    await super.stop();
    await this.#driver?.stop();
  }
}

const launchers = {
  chromium: () =>
    playwrightLauncher({
      product: 'chromium',
      // Copy buttons are tested against the real clipboard.
      createBrowserContext: ({ browser }) => browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] }),
      launchOptions: chromiumLaunchOptions(),
    }),
  // One test file at a time: real key presses reach only the window that has the focus.
  firefox: () => chromeLauncher({ puppeteer: puppeteerCore, launchOptions: firefoxLaunchOptions(), concurrency: 1 }),
  webkit: () => new WebKitLauncher(),
};

/** Browser tests (elements, cards, browser-only client code, security) in Chromium, Firefox and WebKit. */
export default {
  files: [
    'test/elements/**/*.test.ts',
    'test/cards/**/*.test.ts',
    'test/browser/**/*.test.ts',
    'test/security/**/*.test.ts',
  ],
  nodeResolve: true,
  concurrency: 2,
  // Hang detectors only, sized for three engines on a busy machine: each test's own limit is mocha's timeout.
  browserStartTimeout: 120_000,
  testsStartTimeout: 120_000,
  testsFinishTimeout: 600_000,
  // Mocha's timeout is a hang detector too (every test waits on what it looks for, never on a clock), sized for a flow
  // of a few steps in three engines at once on a busy 2-core machine. The two flows that once passed 20 s in CI (the
  // outbox's, theming's) turned out to hang on a refused send (a widget bug, a test helper's), mended since.
  // WTR_GREP="text" runs only the tests whose title matches.
  testFramework: { config: { timeout: 60_000, ...(process.env.WTR_GREP ? { grep: process.env.WTR_GREP } : {}) } },
  // Lit's one-line notice that it runs in dev mode (which tests want, for its warnings) is noise.
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  middleware: [tokenUnavailable],
  plugins: [
    svcServicePlugin(),
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
  browsers: selectedEngines().map((engine) => launchers[engine]()),
};
