import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build, type Rollup } from 'vite';
import { ROOT } from './build-app.js';

/**
 * The built package as its users get it (run after `npm run build`): every entry resolves, a bundler keeps
 * the modules that register the elements, and the guides' snippets are the tested files and type-check
 * against the published `.d.ts`.
 */

interface PackageJson {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
  sideEffects: string[] | false;
  dependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/**
 * What a site's bundler makes of `source` importing the package installed in `node_modules` with this
 * package.json (`sideEffects` overridable), dependencies left out.
 */
async function bundleWithPackage(dir: string, source: string, sideEffects: PackageJson['sideEffects']) {
  const installed = join(dir, 'node_modules', pkg.name);
  rmSync(installed, { recursive: true, force: true });
  mkdirSync(installed, { recursive: true });
  cpSync(join(ROOT, 'dist/lib'), join(installed, 'dist/lib'), { recursive: true });
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ ...pkg, sideEffects }));
  const entry = join(dir, 'site.js');
  writeFileSync(entry, source);
  const result = (await build({
    configFile: false,
    logLevel: 'silent',
    root: dir,
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['es'], fileName: 'site' },
      // The package's dependencies (and their subpaths) stay imports, as a site's bundler resolves them itself.
      rolldownOptions: {
        external: (id) => Object.keys(pkg.dependencies).some((d) => id === d || id.startsWith(`${d}/`)),
      },
    },
  })) as Rollup.RollupOutput[];
  return result
    .flatMap((output) => output.output)
    .map((chunk) => (chunk.type === 'chunk' ? chunk.code : ''))
    .join('\n');
}

describe('package: the built entries', () => {
  let dir: string;
  before(() => {
    assert.ok(existsSync(join(ROOT, 'dist/lib/index.js')), 'run `npm run build` first');
    dir = mkdtempSync(join(tmpdir(), 'svc-package-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every export of package.json names files that exist, with types for each module entry', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.default];
      for (const file of files) {
        if (file.includes('*')) {
          // A subpath pattern (`./svc-chat-lang-*.js`, one file per language) names at least one file.
          const [before, after] = file.split('*') as [string, string];
          const dir = join(ROOT, before, '..');
          const prefix = before.slice(before.lastIndexOf('/') + 1);
          const matches = readdirSync(dir).filter((name) => name.startsWith(prefix) && name.endsWith(after));
          assert.ok(matches.length > 0, `${subpath}: no file matches ${file}`);
        } else assert.ok(existsSync(join(ROOT, file)), `${subpath}: ${file} is missing`);
      }
    }
    assert.deepEqual(
      Object.keys(pkg.exports).filter((k) => typeof pkg.exports[k] === 'object'),
      ['.', './protocol', './elements', './react', './inbox', './tools', './svc-chat.js', './svc-chat.esm.js'],
    );
  });

  it('no shipped file names a source map the package leaves out (`files` drops every `.map`)', () => {
    const shipped = readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) =>
      /\.(js|d\.ts)$/.test(file),
    );
    assert.ok(shipped.length > 100, `${shipped.length} files`);
    const dangling = shipped.filter((file) =>
      readFileSync(join(ROOT, 'dist', file), 'utf8').includes('sourceMappingURL'),
    );
    assert.deepEqual(dangling, []);
  });

  it("a bundler keeps the element registrations of `import '@svc/agent-sdk/elements'`", async () => {
    const code = await bundleWithPackage(dir, `import '${pkg.name}/elements';\n`, pkg.sideEffects);
    assert.match(code, /customElements\.define\(/);
    for (const tag of ['svc-chat', 'svc-markdown', 'svc-sms-sign-in', 'svc-payment-gate', 'svc-info-collect']) {
      assert.match(code, new RegExp(`\\.define\\("${tag}"\\)`), `${tag} is registered`);
    }
  });

  it('sideEffects names every module that registers an element, in the build and in the sources', () => {
    // Its entries are globs (`./src/cards/svc-*.ts`), as bundlers read them: `*` is any name within a folder.
    const patterns = (pkg.sideEffects || []).map(
      (glob) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`),
    );
    const listed = (path: string) => patterns.some((pattern) => pattern.test(path));
    // Every module of src/, also those in a component's folder (`elements/svc-chat/svc-chat.ts`).
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' });
    const modules = sources.filter((file) => file.endsWith('.ts'));
    let registering = 0;
    for (const file of modules) {
      if (!/\.define\('svc-/.test(readFileSync(join(ROOT, 'src', file), 'utf8'))) continue;
      registering++;
      assert.ok(listed(`./src/${file}`), `./src/${file} is in sideEffects`);
      assert.ok(listed(`./dist/lib/${file.replace(/\.ts$/, '.js')}`), `its build is in sideEffects`);
    }
    assert.ok(registering >= 7, `${registering} modules register an element`);
    assert.ok(!listed('./src/theme/tokens.ts'), 'a module without side effects is not listed');
  });

  it('without the sideEffects list the same bundle loses them (the check above can fail)', async () => {
    const code = await bundleWithPackage(dir, `import '${pkg.name}/elements';\n`, false);
    assert.doesNotMatch(code, /\.define\("svc-chat"\)/);
  });

  it('the tools entry throws NotImplementedError of the main entry, naming the reserved function', async () => {
    const { tool, createSdkMcpServer } = await import(`${pkg.name}/tools`);
    const { NotImplementedError } = await import(pkg.name);
    assert.throws(
      () => tool('weather', {}),
      (err: Error) => err instanceof NotImplementedError && /tool\(\)/.test(err.message),
    );
    assert.throws(
      () => createSdkMcpServer({ name: 'x' }),
      (err: Error) => err instanceof NotImplementedError && /createSdkMcpServer\(\)/.test(err.message),
    );
  });

  it("the React and Vue guides' snippets type-check against the published .d.ts", () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(import.meta.dirname, 'tsconfig.json')], { stdio: 'pipe' });
  });
});

describe('package: typed in TSX and in editors', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8')) as {
    modules: { declarations: { tagName: string; attributes?: { name: string }[]; events?: EventDoc[] }[] }[];
  };
  interface EventDoc {
    name: string;
    type?: { text: string };
  }
  const elements = manifest.modules.flatMap((module) => module.declarations);

  it('every event of the manifest has its type', () => {
    const events = elements.flatMap((element) => element.events ?? []);
    assert.ok(events.length >= 16, `${events.length} events`);
    assert.deepEqual(
      events.filter((event) => !event.type?.text.startsWith('CustomEvent<')).map((event) => event.name),
      [],
    );
  });

  it('<svc-chat> and <svc-markdown> in TSX (React 19): right props pass, a wrong attribute type is an error', () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const project = join(import.meta.dirname, 'jsx/tsconfig.json');
    const result = spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { encoding: 'utf8' });
    const errors = result.stdout.split('\n').filter((line) => /error TS/.test(line));
    // Each line of `Wrong()` in jsx/chat.tsx, and nothing in `Support()`.
    assert.deepEqual(
      errors.map((line) => /\((\d+),\d+\): error (TS\d+)/.exec(line)?.slice(1).join(' ')),
      ['26 TS2322', '27 TS2322', '28 TS2339', '29 TS2322'],
      result.stdout,
    );
    assert.match(errors[0]!, /'"sideways"' is not assignable to type 'ChatMode \| undefined'/);
  });

  it("VS Code's custom data and JetBrains' web-types list every element with its attributes, named by package.json", () => {
    const named = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & {
      exports: Record<string, unknown>;
    };
    assert.equal(named['web-types'], './dist/web-types.json');
    assert.equal(named.exports['./vscode.html-custom-data.json'], './dist/vscode.html-custom-data.json');
    const vscode = JSON.parse(readFileSync(join(ROOT, 'dist/vscode.html-custom-data.json'), 'utf8')) as {
      tags: { name: string; attributes: { name: string }[] }[];
    };
    const webTypes = JSON.parse(readFileSync(join(ROOT, 'dist/web-types.json'), 'utf8')) as {
      name: string;
      contributions: { html: { elements: { name: string; attributes: { name: string }[]; js: JsDoc }[] } };
    };
    interface JsDoc {
      events: { name: string }[];
    }
    assert.equal(webTypes.name, pkg.name);
    for (const element of elements) {
      const attributes = (element.attributes ?? []).map((a) => a.name).sort();
      const tag = vscode.tags.find((t) => t.name === element.tagName);
      assert.deepEqual(tag?.attributes.map((a) => a.name).sort(), attributes, `${element.tagName} in VS Code's data`);
      const web = webTypes.contributions.html.elements.find((e) => e.name === element.tagName);
      assert.deepEqual(web?.attributes.map((a) => a.name).sort(), attributes, `${element.tagName} in web-types`);
      assert.deepEqual(
        web?.js.events.map((e) => e.name),
        (element.events ?? []).map((e) => e.name),
      );
    }
  });
});

describe('package: the framework guides', () => {
  const guides: Record<string, string[]> = {
    'html.md': ['html/snippet.html'],
    'react.md': ['react/App.jsx'],
    'vue.md': ['vue/main.js'],
    'svelte.md': ['svelte/App.svelte'],
  };
  for (const [guide, snippets] of Object.entries(guides)) {
    it(`docs/frameworks/${guide} shows the snippet the embed tests run`, () => {
      const text = readFileSync(join(ROOT, 'docs/frameworks', guide), 'utf8');
      for (const file of snippets) {
        const snippet = readFileSync(join(import.meta.dirname, file), 'utf8').trim();
        assert.ok(text.includes(snippet), `${guide} should include ${file} (from test/embed/) verbatim`);
      }
    });
  }
});
