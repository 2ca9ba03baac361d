import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build, type Rollup } from 'vite';

const INDEX = resolve(import.meta.dirname, '../../src/index.ts');

/** What a site's bundler makes of `import { … } from '@svc/agent-sdk'`, unminified so names can be read. */
async function bundle(dir: string, imports: string): Promise<string> {
  const entry = join(dir, `entry-${imports.replace(/\W+/g, '-')}.ts`);
  writeFileSync(entry, `export { ${imports} } from ${JSON.stringify(INDEX)};\n`);
  const result = (await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['es'], fileName: 'out' },
      rollupOptions: { external: ['eventsource-parser'] },
    },
  })) as Rollup.RollupOutput[];
  return result
    .flatMap((output) => output.output)
    .map((chunk) => (chunk.type === 'chunk' ? chunk.code : ''))
    .join('\n');
}

describe('client: tree-shaking', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a chat-only bundle carries no workspace administration code', async () => {
    const chatOnly = await bundle(dir, 'ChatClient');
    assert.match(chatOnly, /conversations\/send/);
    assert.doesNotMatch(chatOnly, /provisionMember|grantCredits|sms\/verify|\/sessions/);
    assert.doesNotMatch(chatOnly, /MessageAudioCache|NotImplementedError\(`/);
  });

  it('the whole client does carry it (the check above can fail)', async () => {
    const whole = await bundle(dir, 'SvcClient');
    assert.match(whole, /provisionMember/);
    assert.match(whole, /sms\/verify/);
  });
});
