import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { visualRegressionPlugin } from '@web/test-runner-visual-regression/plugin';
import { chromiumLaunchOptions } from './test/helpers/chromium.mjs';
import { svcServicePlugin, tokenUnavailable } from './test/helpers/wtr-service.mjs';

/** Browser tests (elements, cards, browser-only client code) in the system Chromium through Playwright. */
export default {
  files: [
    'test/elements/**/*.test.ts',
    'test/cards/**/*.test.ts',
    'test/browser/**/*.test.ts',
    'test/security/**/*.test.ts',
  ],
  nodeResolve: true,
  concurrency: 2,
  testsFinishTimeout: 60_000,
  // WTR_GREP="text" runs only the tests whose title matches.
  testFramework: { config: { timeout: 20_000, ...(process.env.WTR_GREP ? { grep: process.env.WTR_GREP } : {}) } },
  // Lit's one-line notice that it runs in dev mode (which tests want, for its warnings) is noise.
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  middleware: [tokenUnavailable],
  plugins: [
    svcServicePlugin(),
    // `visualDiff(element, name)` saves a screenshot to look at, test-results/screenshots/<browser>/<name>.png:
    // always written (`update`), never compared, since fonts and anti-aliasing differ between machines.
    visualRegressionPlugin({
      update: true,
      baseDir: 'test-results/screenshots',
      getBaselineName: ({ browser, name }) => `${browser}/${name}`,
    }),
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      // Copy buttons are tested against the real clipboard.
      createBrowserContext: ({ browser }) => browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] }),
      launchOptions: chromiumLaunchOptions,
    }),
  ],
};
