import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';
import { scriptTagFiles } from '../scripts/script-tag-files.mjs';
import { ROOT } from './browser.js';

export interface Sizes {
  bytes: number;
  gzip: number;
  brotli: number;
}

function sizesOf(code: string | Buffer): Sizes {
  return {
    bytes: Buffer.byteLength(code),
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code).length,
  };
}

/** What a site's bundler keeps of `entry` (minified, everything bundled): the entry chunk's sizes, and the
 * modules kept in every chunk (the markdown engine is a chunk of its own). */
async function bundle(source: string, name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-size-'));
  try {
    const entry = join(dir, `${name}.ts`);
    writeFileSync(entry, source);
    const [output] = (await build({
      configFile: false,
      logLevel: 'silent',
      build: { write: false, target: 'es2022', minify: true, lib: { entry, formats: ['es'], fileName: name } },
    })) as Rollup.RollupOutput[];
    const chunks = output.output.filter((item): item is Rollup.OutputChunk => item.type === 'chunk');
    return { sizes: sizesOf(chunks[0].code), modules: Object.assign({}, ...chunks.map((chunk) => chunk.modules)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Unminified bytes of each package or source file in the bundle: where the bytes come from. */
function treemap(modules: Rollup.OutputChunk['modules']): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const [id, module] of Object.entries(modules)) {
    const inPackage = id.split('node_modules/').at(-1)!;
    const name = id.includes('node_modules/')
      ? inPackage
          .split('/')
          .slice(0, inPackage.startsWith('@') ? 2 : 1)
          .join('/')
      : relative(ROOT, id);
    groups[name] = (groups[name] ?? 0) + module.renderedLength;
  }
  return Object.fromEntries(
    Object.entries(groups)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25),
  );
}

/** Benchmark 1: bundle sizes, with deep-chat's own bundle measured in the same run. */
export async function sizeBenchmark() {
  const files: Record<string, Sizes> = {};
  // By their names without the content hash (`dist/svc-chat-panel.js`), as the figures of every run are compared.
  const scriptTag = existsSync(join(ROOT, 'dist')) ? scriptTagFiles(join(ROOT, 'dist')) : {};
  const built = ['svc-chat.js', 'svc-chat.esm.js', 'svc-chat-panel.js', 'svc-chat-markdown.js'].map((n) => `dist/${n}`);
  const lib = join(ROOT, 'dist/lib');
  if (existsSync(lib)) {
    for (const file of readdirSync(lib)) if (file.endsWith('.js')) built.push(`dist/lib/${file}`);
  }
  for (const file of built) {
    const path = scriptTag[file.replace(/^dist\//, '')] ?? join(ROOT, file);
    if (existsSync(path)) files[file] = sizesOf(readFileSync(path));
  }
  // The whole widget a script-tag page ends up with: the script, the launcher module it imports, and the panel
  // and the markdown engine that loads.
  const parts = ['dist/svc-chat.js', 'dist/svc-chat.esm.js', 'dist/svc-chat-panel.js', 'dist/svc-chat-markdown.js'].map(
    (file) => files[file],
  );
  const completeScriptTag = parts.every(Boolean)
    ? {
        bytes: parts.reduce((sum, part) => sum + part!.bytes, 0),
        gzip: parts.reduce((sum, part) => sum + part!.gzip, 0),
        brotli: parts.reduce((sum, part) => sum + part!.brotli, 0),
      }
    : undefined;
  const index = JSON.stringify(join(ROOT, 'src/index.ts'));
  const chatOnly = await bundle(`export { ChatClient } from ${index};\n`, 'chat-client-only');
  const source = (file: string) => `export * from ${JSON.stringify(join(ROOT, 'src/script-tag', file))};\n`;
  const whole = await bundle(
    `${source('module.ts')}export * from ${JSON.stringify(join(ROOT, 'src/panel.ts'))};\n`,
    'script-tag',
  );
  const deepChat = 'node_modules/deep-chat/dist/deepChat.bundle.js';
  return {
    files,
    completeScriptTag,
    importOnlyChatClient: chatOnly.sizes,
    deepChat: { file: deepChat, ...sizesOf(readFileSync(join(ROOT, deepChat))) },
    scriptTagTreemapBytes: treemap(whole.modules),
  };
}
