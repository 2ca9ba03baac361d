import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './test/helpers/browsers.mjs';

/** End-to-end tests: Debian's Chromium (or CHROME_PATH) against the real service and demo pages. */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  timeout: 60_000,
  // An assertion waits for its condition as long as the test may run: no shorter clock decides.
  expect: { timeout: 0 },
  reporter: [['list']],
  // `embed`: the framework guides' snippets in real pages (test/embed/, after `npm run build`).
  // `packages`: both packages from their packed tarballs, in fresh Vite and React projects, and each framework
  // guide followed as written in its framework's own starter (test/packages/).
  projects: [{ name: 'e2e' }, { name: 'embed', testDir: 'test/embed' }, { name: 'packages', testDir: 'test/packages' }],
  use: {
    headless: true,
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions(),
  },
});
