export type Engine = 'chromium' | 'firefox' | 'webkit';
export declare const ENGINES: Engine[];
export declare function selectedEngines(): Engine[];
export declare function program(variable: string, path: string, debianPackage: string): string;
export declare function chromiumLaunchOptions(): { executablePath: string; args: string[] };
export declare function firefoxLaunchOptions(): {
  browser: 'firefox';
  protocol: 'webDriverBiDi';
  headless: true;
  executablePath: string;
  extraPrefsFirefox: Record<string, unknown>;
};
export declare function webkitCapabilities(): {
  browserName: string;
  'wdio:enforceWebDriverClassic': true;
  'webkitgtk:browserOptions': { binary: string; args: string[] };
};
export interface WebKitDriver {
  hostname: string;
  port: number;
  stop(): Promise<void>;
}
export declare function startWebKitDriver(): Promise<WebKitDriver>;
