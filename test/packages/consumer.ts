import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '../..');

const run = promisify(execFile);

/**
 * This process's environment without what `npm run` adds (`npm_config_*`, `npm_package_*`, …): a consumer's
 * npm must read its own project, not the repository it was started from.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'FORCE_COLOR'),
  );
  // Plain text to read (the test runner asks its children for colours).
  return { ...env, NO_COLOR: '1', NEXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false', ...extra };
}

export interface Output {
  stdout: string;
  stderr: string;
}

/** Runs `command` in `cwd` as a user would in a shell; a failure carries everything it printed. */
export async function sh(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Output> {
  try {
    return await run(command, args, { cwd, env: cleanEnv(env), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as Output;
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/**
 * Starts a long-running `command` in `cwd` (a server) and resolves once a line of its stdout matches `ready`,
 * with that match; it fails if the command exits first. `stop` ends it with every process it started: `npm` and
 * `npx` run the server as a child of their own, which outlived a signal sent to them alone.
 */
export async function startUntil(
  cwd: string,
  command: string,
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<{ match: RegExpExecArray; stop: () => void }> {
  // A process group of its own, which `stop` signals whole.
  const child = spawn(command, args, { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))),
  );
  const matched = (async () => {
    for await (const line of createInterface({ input: child.stdout! })) {
      const match = ready.exec(line);
      if (match) return match;
    }
    return exited;
  })();
  try {
    return { match: await Promise.race([matched, exited]), stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/** `npm install` without the audit and funding lines, which are not warnings. */
export const npmInstall = (cwd: string, specs: string[], flags: string[] = []) =>
  sh(cwd, 'npm', ['install', '--no-audit', '--no-fund', ...flags, ...specs]);

/** The lines npm printed as warnings (`npm warn …`). */
export const npmWarnings = (output: Output) =>
  `${output.stdout}\n${output.stderr}`.split('\n').filter((line) => /^npm warn/i.test(line));

/** Both packages packed as `npm publish` would, into a fresh folder: `{ sdk, server }` tarball paths. */
export async function packBoth(): Promise<{ sdk: string; server: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-packs-'));
  const pack = async (args: string[]) => {
    const { stdout } = await sh(ROOT, 'npm', ['pack', '--json', '--pack-destination', dir, ...args]);
    return join(dir, (JSON.parse(stdout) as [{ filename: string }])[0].filename);
  };
  return { sdk: await pack([]), server: await pack(['--workspace', '@svc/agent-server']), dir };
}

/** An empty project in a temporary folder, with `files` (path → text, or a folder of this repository to copy). */
export function consumerProject(
  name: string,
  pkg: Record<string, unknown> = {},
  files: Record<string, string | { copy: string }> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module', ...pkg }, null, 2));
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    if (typeof content === 'string') {
      mkdirSync(join(target, '..'), { recursive: true });
      writeFileSync(target, content);
    } else cpSync(content.copy, target, { recursive: true });
  }
  return dir;
}

/** The version of a package this repository has installed, so a consumer takes it from npm's cache. */
export const installedVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Every package folder under `node_modules` (scoped ones by their scope, nested ones included). */
export function installedPackages(dir: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    for (const entry of safeReaddir(modules)) {
      if (entry.startsWith('.')) continue;
      const scoped = entry.startsWith('@');
      for (const name of scoped ? safeReaddir(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry]) {
        found.push(name);
        walk(join(modules, name, 'node_modules'));
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return found;
}

const safeReaddir = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** Bytes of every file under `dir`. */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Files under `dir` whose names match `pattern` (native modules: `\.node$`, build files: `binding\.gyp$`). */
export const filesMatching = (dir: string, pattern: RegExp) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));

/**
 * A static server of `dir` at `prefix` (`/npm/@svc/agent-sdk@0.1.0/`), as an npm CDN serves a package: the files as
 * they are, readable by any origin (CORS), which the script's module chunks need.
 */
export async function startCdn(prefix: string, dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const types: Record<string, string> = { '.js': 'text/javascript', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url!, 'http://cdn').pathname);
    const file = path.startsWith(prefix) ? join(dir, path.slice(prefix.length)) : '';
    if (!file.startsWith(`${dir}/`) || !existsSync(file) || !statSync(file).isFile())
      return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'access-control-allow-origin': '*',
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
