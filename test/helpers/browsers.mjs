import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { freePort } from './free-port.mjs';

/**
 * How every test and benchmark finds and starts the three engines, all from Debian's packages (no tool
 * downloads a browser or driver): Chromium (`CHROME_PATH`), Firefox ESR over WebDriver BiDi (`FIREFOX_PATH`)
 * and WebKitGTK's WebDriver under a virtual display of its own (`WEBKIT_DRIVER_PATH`, `XVFB_PATH`).
 * `SVC_BROWSERS=firefox,webkit` runs the browser suites and the journey in some of them only.
 */

export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** The engines this run tests in: `SVC_BROWSERS` (comma separated), or all three. */
export function selectedEngines() {
  const asked = process.env.SVC_BROWSERS?.split(/[\s,]+/).filter(Boolean) ?? ENGINES;
  const unknown = asked.filter((engine) => !ENGINES.includes(engine));
  if (unknown.length)
    throw new Error(`SVC_BROWSERS names ${unknown.join(', ')}; the engines are ${ENGINES.join(', ')}`);
  return asked;
}

/** An installed program: `variable` overrides `path`; when it is missing, the error names the package to install. */
export function program(variable, path, debianPackage) {
  const file = process.env[variable] || path;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new Error(
      `${file} is not installed: install Debian's ${debianPackage} (apt-get install ${debianPackage}), or set ${variable} to where it is`,
    );
  }
  return file;
}

/** Chromium without the sandbox (CI runs as root) and without the background traffic a closed network refuses. */
export function chromiumLaunchOptions() {
  return {
    executablePath: program('CHROME_PATH', '/usr/bin/chromium', 'chromium'),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-dev-shm-usage',
    ],
  };
}

/**
 * The oldest Firefox the suites run in: puppeteer's `setViewport` sends WebDriver BiDi's
 * `browsingContext.setScreenOrientationOverride`, which ESR 140 (Debian 12's release pocket) answers with
 * `UnknownCommandError`; ESR 153 (its security pocket) has it. `.ci/run` upgrades an older `firefox-esr`.
 */
export const FIREFOX_MIN_VERSION = 153;

/** `file` if it is a Firefox of at least FIREFOX_MIN_VERSION; otherwise one line that says what to do. */
function recentFirefox(file) {
  const version = /Firefox (\d+)/.exec(execFileSync(file, ['--version'], { encoding: 'utf8' }))?.[1];
  if (Number(version) >= FIREFOX_MIN_VERSION) return file;
  throw new Error(
    `${file} is Firefox ${version ?? '(unknown version)'}; the browser suites need ${FIREFOX_MIN_VERSION} or later (older ESRs lack WebDriver BiDi's setScreenOrientationOverride): apt-get update && apt-get install firefox-esr (Debian's security pocket has it), or set FIREFOX_PATH`,
  );
}

/**
 * Firefox ESR for puppeteer: WebDriver BiDi, headless, no display needed. The clipboard is open to scripts, as
 * the tests grant it in Chromium.
 */
export function firefoxLaunchOptions() {
  return {
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    headless: true,
    executablePath: recentFirefox(program('FIREFOX_PATH', '/usr/bin/firefox-esr', 'firefox-esr')),
    extraPrefsFirefox: { 'dom.events.testing.asyncClipboard': true },
  };
}

/** Where Debian's libwebkit2gtk puts the MiniBrowser that WebKitWebDriver drives. */
const MULTIARCH = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch] ?? `${process.arch}-linux-gnu`;

/**
 * What WebdriverIO asks WebKitWebDriver for: its MiniBrowser over classic WebDriver (it has no BiDi), with the
 * clipboard open to scripts, as the tests grant it in Chromium (permissions) and Firefox (a testing pref).
 */
export function webkitCapabilities() {
  return {
    browserName: 'MiniBrowser',
    'wdio:enforceWebDriverClassic': true,
    'webkitgtk:browserOptions': {
      binary: program('WEBKIT_BROWSER_PATH', `/usr/lib/${MULTIARCH}/webkit2gtk-4.1/MiniBrowser`, 'libwebkit2gtk-4.1-0'),
      args: ['--automation', '--javascript-can-access-clipboard=true'],
    },
  };
}

/**
 * Starts a virtual display (Xvfb picks a free one: WebKitGTK has no headless mode) and WebKitWebDriver on a free
 * port, so that runs side by side on one machine do not meet. `stop()` ends both.
 */
export async function startWebKitDriver() {
  const driverPath = program('WEBKIT_DRIVER_PATH', '/usr/bin/WebKitWebDriver', 'webkit2gtk-driver');
  const xvfbPath = program('XVFB_PATH', '/usr/bin/Xvfb', 'xvfb');
  const display = await startDisplay(xvfbPath);
  try {
    // A port found free can be taken by another run before the driver binds it: then the driver exits, try another.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const driver = spawn(driverPath, [`--port=${port}`], {
        env: { ...process.env, DISPLAY: `:${display.number}` },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const exited = new Promise((resolve) => driver.once('exit', resolve));
      const ready = await Promise.race([listening(port, exited), exited.then(() => false)]);
      if (ready) {
        return {
          hostname: '127.0.0.1',
          port,
          async stop() {
            driver.kill();
            await exited;
            await display.stop();
          },
        };
      }
      if (attempt === 3) throw new Error(`${driverPath} exited before it listened on port ${port}`);
    }
  } catch (error) {
    await display.stop();
    throw error;
  }
}

/** Xvfb on the first free display number, which it reports on a pipe (`-displayfd`) once it accepts clients. */
function startDisplay(xvfbPath) {
  const xvfb = spawn(xvfbPath, ['-displayfd', '3', '-screen', '0', '1920x1200x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => xvfb.once('exit', resolve));
  let log = '';
  xvfb.stderr.on('data', (chunk) => {
    log += chunk;
  });
  return new Promise((resolve, reject) => {
    let written = '';
    xvfb.stdio[3].on('data', (chunk) => {
      written += chunk;
      if (!written.includes('\n')) return;
      resolve({
        number: Number(written.trim()),
        async stop() {
          xvfb.kill();
          await exited;
        },
      });
    });
    exited.then((code) => reject(new Error(`Xvfb exited (${code}) before it opened a display:\n${log}`)));
  });
}

/**
 * Resolves true once the driver answers its status request. It says nothing when it is ready, so its port is
 * tried again after each refused connection, until the driver answers or exits.
 */
async function listening(port, exited) {
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  while (!gone) {
    const ok = await fetch(`http://127.0.0.1:${port}/status`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
