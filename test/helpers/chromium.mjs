/**
 * How every test and benchmark launches Chromium: Debian's build by default (`CHROME_PATH` overrides it),
 * without the sandbox (CI runs as root) and without the background traffic a closed network refuses.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-dev-shm-usage',
  ],
};
