import { writeFileSync } from 'node:fs';
import puppeteer, { type Browser, type LaunchOptions, type Page } from 'puppeteer-core';
import { remote } from 'webdriverio';
import {
  chromiumLaunchOptions,
  type Engine,
  firefoxLaunchOptions,
  startWebKitDriver,
  webkitCapabilities,
} from '../helpers/browsers.mjs';

/**
 * What the journey needs from a browser, the way a visitor acts: load a page, press at a point, type, and look.
 * `evaluate` runs an expression in the page and returns its (awaited) JSON value; it only observes.
 */
export interface Driver {
  readonly engine: Engine;
  /** The browser and its version, as the browser reports them. */
  readonly version: string;
  goto(url: string): Promise<void>;
  evaluate<T>(expression: string): Promise<T>;
  /** A pointer press and release at a point of the viewport, in CSS pixels. */
  click(x: number, y: number): Promise<void>;
  /** Types text into whatever has the focus, key by key. */
  type(text: string): Promise<void>;
  press(key: 'Enter'): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A person at the browser, through the page's probe (probe.js): presses on parts of the page's widget (the
 * visitor's chat or the staff's inbox), types into them, and waits for what they see.
 */
export function person(browser: Driver) {
  /** Runs `expression` in the page; a failure names the expression, since the driver's errors do not. */
  const evaluate = <T>(expression: string) =>
    browser.evaluate<T>(expression).catch((error: Error) => {
      throw new Error(`${expression}: ${error.message}`, { cause: error });
    });
  const look = <T>(call: string, ...args: unknown[]) =>
    evaluate<T>(`__journey.${call}(${args.map((arg) => JSON.stringify(arg)).join(', ')})`);
  const press = async (...selectors: string[]) => {
    await look('shown', selectors);
    const { x, y } = await look<{ x: number; y: number }>('centre', selectors);
    await browser.click(x, y);
  };
  /** Presses into the field `selectors` find and types `text` there, key by key. */
  const fill = async (selectors: string[], text: string) => {
    await press(...selectors);
    await browser.type(text);
  };
  return {
    evaluate,
    look,
    press,
    fill,
    /** Resolves once `condition` (an expression in the page, e.g. of `__journey`) is truthy. */
    until: <T>(condition: string) => evaluate<T>(`__journey.until(() => ${condition})`),
    /** Writes in the chat's composer and sends with Enter. */
    async send(text: string) {
      await fill(['textarea[part~="input"]'], text);
      await browser.press('Enter');
    },
  };
}

/** The viewport every engine gets: a laptop's. */
const VIEWPORT = { width: 1280, height: 800 };

export function launch(engine: Engine): Promise<Driver> {
  if (engine === 'chromium') return puppeteerDriver(engine, { ...chromiumLaunchOptions(), headless: true });
  if (engine === 'firefox') return puppeteerDriver(engine, firefoxLaunchOptions());
  return webdriverDriver();
}

/** Chromium over the DevTools protocol and Firefox over WebDriver BiDi, both through puppeteer-core. */
async function puppeteerDriver(engine: Engine, options: LaunchOptions): Promise<Driver> {
  const browser: Browser = await puppeteer.launch({ ...options, defaultViewport: VIEWPORT });
  const page: Page = await browser.newPage();
  return {
    engine,
    version: await browser.version(),
    async goto(url) {
      await page.goto(url);
    },
    evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
    click: (x, y) => page.mouse.click(x, y),
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key),
    async screenshot(path) {
      await page.screenshot({ path: path as `${string}.png` });
    },
    close: () => browser.close(),
  };
}

/** WebKitGTK over classic WebDriver, through WebdriverIO, on a virtual display of its own. */
async function webdriverDriver(): Promise<Driver> {
  const driver = await startWebKitDriver();
  try {
    const browser = await remote({
      hostname: driver.hostname,
      port: driver.port,
      path: '/',
      logLevel: 'error',
      capabilities: webkitCapabilities(),
    });
    // The window's frame takes 38 pixels: this gives the viewport above.
    await browser.setWindowSize(VIEWPORT.width, VIEWPORT.height + 38);
    // A wait in the page gives up by itself after a minute (probe.js): the driver's own 30 s must not cut it short.
    await browser.setTimeout({ script: 120_000 });
    const capabilities = browser.capabilities as { browserName?: string; browserVersion?: string };
    return {
      engine: 'webkit',
      version: `${capabilities.browserName} ${capabilities.browserVersion}`,
      async goto(url) {
        await browser.url(url);
      },
      evaluate: <T>(expression: string) => browser.execute(`return ${expression};`) as Promise<T>,
      async click(x, y) {
        await browser
          .action('pointer')
          .move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' })
          .down()
          .up()
          .perform();
      },
      async type(text) {
        // One action per key: in one long action WebKitGTK's driver dropped keys (a repeated letter, a space).
        for (const key of text) await browser.keys([key]);
      },
      async press(key) {
        await browser.keys([key]);
      },
      async screenshot(path) {
        writeFileSync(path, Buffer.from(await browser.takeScreenshot(), 'base64'));
      },
      async close() {
        await browser.deleteSession();
        await driver.stop();
      },
    };
  } catch (error) {
    await driver.stop();
    throw error;
  }
}
