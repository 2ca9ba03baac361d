import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { namesTwice } from '../helpers/names-twice.js';

/*
 * The service's tree as docs/server.md "Where things are" describes it: a file's name says what it holds
 * (and is unique), the map names every folder and module, imports point one way, the store only reads
 * and writes. Each detector is first shown to fire on a made-up case.
 */

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** Every file of server/ (not the build output), as a path relative to it. */
function serverFiles(dir = SERVER): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'dist' || entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? serverFiles(path) : [relative(SERVER, path)];
  });
}

const files = serverFiles();
const modules = files.filter((file) => file.endsWith('.ts'));
const folders = new Set(files.map(dirname).filter((folder) => folder !== '.'));
const source = (module: string) => readFileSync(join(SERVER, module), 'utf8');

/** The `server/…` files and folders (`…/`) a document names. */
const serverPaths = (text: string) =>
  [...text.matchAll(/(?<![\w/.@-])server\/((?:[\w-]+\/)*(?:[\w-]+\.(?:ts|js|sql|json)\b|[\w-]+\/))/g)].map((match) =>
    match[1]!.replace(/\/$/, ''),
  );

/**
 * The layers, highest first: a module imports (for its values) only from its own layer or lower ones.
 * `http/app.ts` registers the routes; the rest of `http/` is what routes speak HTTP with.
 */
const LAYERS = ['boot', 'app', 'routes', 'turns', 'services', 'http', 'runtimes', 'store'];
const layerOf = (module: string) => (module === 'http/app.ts' ? 'app' : module.split('/')[0]!);

/** The server modules `module` imports, each with whether only types are imported. */
function importsOf(module: string, text: string): { target: string; typeOnly: boolean }[] {
  const found = text.matchAll(/^import (type )?[^;]*?from '(\.[^']+)'|import\('(\.[^']+)'\)/gms);
  return [...found].map((match) => ({
    target: join(dirname(module), match[2] ?? match[3]!).replace(/\.js$/, '.ts'),
    typeOnly: match[1] !== undefined,
  }));
}

/** The imports of `module` that point up. A type costs nothing at run time (AppContext goes everywhere), except in the store. */
const upwardImports = (module: string, text: string) =>
  importsOf(module, text)
    .filter(({ typeOnly }) => !(typeOnly && layerOf(module) !== 'store'))
    .filter(({ target }) => LAYERS.indexOf(layerOf(target)) < LAYERS.indexOf(layerOf(module)))
    .map(({ target }) => `${module} -> ${target}`);

/** What a table module of the store must not do: it reads and writes, nothing more. */
function storeProblems(module: string, text: string): string[] {
  const problems = [
    /\bset(Timeout|Interval|Immediate)\(|timers\/promises/.test(text) && 'a timer',
    /\.(notify|listen)\(/.test(text) && 'publishing',
    importsOf(module, text).some(({ target }) => !target.startsWith('store/')) && 'an import from outside store/',
    // Whether something may happen (a limit, a quota, a wallet) is a service's to say: the rows never refuse.
    /\brefus/i.test(text) && 'a refusal',
  ];
  return problems.filter((problem) => problem !== false).map((problem) => `${module}: ${problem}`);
}

/**
 * What a module of services/ or turns/ imports of http/errors.ts that decides an HTTP answer: they refuse with a
 * Refusal by name, and routes/refusal-answers.ts gives it its status and detail. `errorText` (a log line) is all
 * they may take from there.
 */
function httpAnswers(module: string, text: string): string[] {
  if (!/^(services|turns)\//.test(module)) return [];
  const found = text.matchAll(/^import (?:type )?\{([^}]*)\} from '(\.[^']+)'/gms);
  return [...found]
    .filter((match) => join(dirname(module), match[2]!) === 'http/errors.js')
    .flatMap((match) => match[1]!.split(',').map((name) => name.replace(/^\s*type\s+/, '').trim()))
    .filter((name) => name !== '' && name !== 'errorText')
    .map((name) => `${module}: ${name}`);
}

/**
 * The tables a service is named for, each with that service: `services/uploads.ts` keeps the rules of
 * `store/upload-rows.ts` (`payment-orders.ts` of `payment-order-rows.ts`, …).
 */
function tablesOfServices(paths: string[]): Map<string, string> {
  const owned = new Map<string, string>();
  for (const path of paths) {
    const table = /^store\/([\w-]+)-rows\.ts$/.exec(path)?.[1];
    const service = table && [`services/${table}.ts`, `services/${table}s.ts`].find((name) => paths.includes(name));
    if (service) owned.set(path, service);
  }
  return owned;
}

/** The imports of `module` that reach a service's table past the service (for its values: a type costs nothing). */
function pastTheService(module: string, text: string, owned: Map<string, string>): string[] {
  if (module.startsWith('store/')) return [];
  return importsOf(module, text)
    .filter(({ target, typeOnly }) => !typeOnly && owned.has(target) && owned.get(target) !== module)
    .map(({ target }) => `${module} -> ${target} (not through ${owned.get(target)})`);
}

/** A module too long to read at once: over 400 lines (as `wc -l` counts them). */
const MAX_LINES = 400;
function tooLong(module: string, text: string): string[] {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return lines > MAX_LINES ? [`${module}: ${lines} lines`] : [];
}

describe('the layout of server/', () => {
  it('has every file name once', () => {
    assert.deepEqual(namesTwice(['routes/files.ts', 'store/files.ts', 'store/db.ts']), [
      'routes/files.ts and store/files.ts',
    ]);
    assert.deepEqual(namesTwice(files), []);
  });

  it('is the tree the map of docs/server.md draws, module by module', () => {
    const doc = readFileSync(join(DOCS, 'server.md'), 'utf8');
    const map = /## Where things are\n[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(map, 'docs/server.md has its map in a text block under "Where things are"');
    const named = new Set(map.match(/[\w-]+\.ts\b/g));
    const namedFolders = new Set([...map.matchAll(/([\w-]+)\/(?=\s|$|[\w-]+\.js)/g)].map((match) => match[1]));
    const names = modules.map((module) => basename(module));
    assert.deepEqual(
      names.filter((name) => !named.has(name)),
      [],
      'modules the map leaves out',
    );
    assert.deepEqual(
      [...named].filter((name) => !names.includes(name)),
      [],
      'names in the map that are no module',
    );
    assert.deepEqual(
      [...folders].map((folder) => basename(folder)).filter((name) => !namedFolders.has(name)),
      [],
      'folders the map leaves out',
    );
  });

  it('has every server/ file and folder the docs name', () => {
    assert.deepEqual(serverPaths('`server/store/records.ts`, server/turns/, test/server/x.ts, `server/limits`'), [
      'store/records.ts',
      'turns',
    ]);
    const missing = ['server.md', 'protocol.md', 'reliability.md'].flatMap((doc) =>
      serverPaths(readFileSync(join(DOCS, doc), 'utf8'))
        .filter((path) => !files.includes(path) && !folders.has(path))
        .map((path) => `${doc}: server/${path}`),
    );
    assert.deepEqual(missing, []);
  });

  it('imports point one way: boot, app, routes, turns, services, http, runtimes, store', () => {
    assert.deepEqual(
      upwardImports(
        'store/x-rows.ts',
        "import type { A } from '../services/context.js';\nimport { b } from './db.js';",
      ),
      ['store/x-rows.ts -> services/context.ts'],
    );
    assert.deepEqual(
      upwardImports(
        'routes/x.ts',
        "import {\n  seed,\n} from '../boot/seed.js';\nimport type { C } from '../boot/c.js';",
      ),
      ['routes/x.ts -> boot/seed.ts'],
    );
    assert.deepEqual(
      modules.filter((module) => !LAYERS.includes(layerOf(module))),
      [],
      'modules outside every layer',
    );
    assert.deepEqual(
      modules.flatMap((module) => upwardImports(module, source(module))),
      [],
    );
  });

  it('keeps the store to reading and writing: no timers, no publishing, no refusals, nothing of the layers above', () => {
    assert.deepEqual(
      storeProblems(
        'store/x-rows.ts',
        "import { e } from '../http/errors.js';\nsetTimeout(f, 1);\ndb.notify(c, p);\nif (low) return { refused: 'wallet' };",
      ),
      [
        'store/x-rows.ts: a timer',
        'store/x-rows.ts: publishing',
        'store/x-rows.ts: an import from outside store/',
        'store/x-rows.ts: a refusal',
      ],
    );
    const rows = modules.filter((module) => module.startsWith('store/') && module.endsWith('-rows.ts'));
    assert.ok(rows.length >= 10, 'the table modules of the store are found');
    assert.deepEqual(
      rows.flatMap((module) => storeProblems(module, source(module))),
      [],
    );
  });

  it('leaves HTTP to the routes: services and turns refuse by name, never with a status', () => {
    assert.deepEqual(
      httpAnswers(
        'services/x.ts',
        "import { errorText, HttpError } from '../http/errors.js';\nimport {\n  type Refusals,\n  notFound,\n} from '../http/errors.js';",
      ),
      ['services/x.ts: HttpError', 'services/x.ts: Refusals', 'services/x.ts: notFound'],
    );
    assert.deepEqual(httpAnswers('routes/x.ts', "import { notFound } from '../http/errors.js';"), []);
    assert.ok(modules.filter((module) => module.startsWith('services/')).length >= 10, 'the services are found');
    assert.deepEqual(
      modules.flatMap((module) => httpAnswers(module, source(module))),
      [],
    );
  });

  it('reaches the tables a service keeps the rules of only through that service', () => {
    const made = tablesOfServices(['services/uploads.ts', 'store/upload-rows.ts', 'store/agent-rows.ts']);
    assert.deepEqual([...made], [['store/upload-rows.ts', 'services/uploads.ts']]);
    assert.deepEqual(
      pastTheService(
        'routes/x.ts',
        "import { insertUpload } from '../store/upload-rows.js';\nimport type { UploadRow } from '../store/upload-rows.js';",
        made,
      ),
      ['routes/x.ts -> store/upload-rows.ts (not through services/uploads.ts)'],
    );
    assert.deepEqual(pastTheService('services/uploads.ts', "import { x } from '../store/upload-rows.js';", made), []);
    const owned = tablesOfServices(modules);
    assert.deepEqual([...owned.keys()].sort(), [
      'store/client-tool-call-rows.ts',
      'store/connector-credential-rows.ts',
      'store/handoff-rows.ts',
      'store/member-rows.ts',
      'store/operator-rows.ts',
      'store/payment-order-rows.ts',
      'store/sms-code-rows.ts',
      'store/upload-rows.ts',
    ]);
    assert.deepEqual(
      modules.flatMap((module) => pastTheService(module, source(module), owned)),
      [],
    );
  });

  it(`keeps every module to ${MAX_LINES} lines at most`, () => {
    assert.deepEqual(tooLong('routes/x.ts', 'line\n'.repeat(401)), ['routes/x.ts: 401 lines']);
    assert.deepEqual(tooLong('routes/x.ts', 'line\n'.repeat(400)), []);
    assert.deepEqual(
      modules.flatMap((module) => tooLong(module, source(module))),
      [],
    );
  });
});
