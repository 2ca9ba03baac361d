import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * design.md's direction of dependencies, checked over the import graph: elements and cards → internal → labels
 * and theme (the public labels and design tokens) → chat → client → protocol. A folder imports itself and the
 * folders after it, never one before it; `src/protocol` imports nothing else of ours; the two folders of a layer do
 * not import each other (elements and cards: the panel's entry module, `src/panel.ts`, registers both). The entries (`src/*.ts`), `src/react`, `src/tools` and `src/script-tag` wrap
 * the others and may import them. The service imports the SDK only as `@svc/agent-sdk/protocol`.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** The layers, first to last; a folder may import its own layer and those after it. */
const LAYERS = [
  ['src/elements', 'src/cards'],
  ['src/internal'],
  ['src/labels', 'src/theme'],
  ['src/chat'],
  ['src/client'],
  ['src/protocol'],
];

const layerOf = (file: string) => LAYERS.findIndex((folders) => folders.some((f) => file.startsWith(`${f}/`)));
const folderOf = (file: string) => LAYERS.flat().find((f) => file.startsWith(`${f}/`));
/** The folders of a layer, as a message names them: `elements and cards`. */
const neighbours = (layer: number) => LAYERS[layer]!.map((f) => f.replace(/^src\//, '')).join(' and ');

/** Every import of a module (static, dynamic, type-only, re-exports): its specifier. */
const importsOf = (source: string) => ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);

/** What breaks the rules in `files` (paths from the repository's root, with their source). */
function layeringViolations(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, source] of files) {
    for (const specifier of importsOf(source)) {
      if (file.startsWith('server/')) {
        const intoSrc = specifier.startsWith('.') && join(dirname(file), specifier).startsWith('src/');
        const sdk = specifier.startsWith('@svc/agent-sdk') && specifier !== '@svc/agent-sdk/protocol';
        if (intoSrc || sdk)
          found.push(`${file} imports ${specifier}: the service imports only @svc/agent-sdk/protocol`);
        continue;
      }
      if (!specifier.startsWith('.')) continue;
      const target = join(dirname(file), specifier);
      const [from, to] = [layerOf(file), layerOf(target)];
      if (from < 0 || to < 0 || folderOf(file) === folderOf(target)) continue;
      if (to < from) found.push(`${file} imports ${target}: ${folderOf(file)} comes before ${folderOf(target)}`);
      else if (to === from) found.push(`${file} imports ${target}: ${neighbours(from)} import neither each other`);
      else if (from === LAYERS.length - 1)
        found.push(`${file} imports ${target}: src/protocol imports nothing of ours`);
    }
  }
  return found;
}

/** The TypeScript sources under `folder`, by path from the repository's root. */
function sources(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name));
    if (entry.isFile() && /\.[mc]?ts$/.test(entry.name) && !path.includes('node_modules') && !path.includes('/dist/')) {
      files.set(path, readFileSync(join(ROOT, path), 'utf8'));
    }
  }
  return files;
}

describe('layering (design.md: one way from elements to protocol)', () => {
  it('finds a planted import against the direction, in every rule (positive control)', () => {
    const planted = new Map([
      ['src/client/http.ts', "import type { ChatStore } from '../chat/chat-store.js';"],
      ['src/internal/dom.ts', "import { SvcChat } from '../elements/svc-chat/svc-chat.js';"],
      ['src/elements/message-view/message-view.ts', "import '../../cards/svc-payment-gate.js';"],
      ['src/cards/svc-card.ts', "const load = () => import('../elements/svc-markdown/svc-markdown.js');"],
      ['src/protocol/records.ts', "export { SvcClient } from '../client/client.js';"],
      ['src/labels/en.ts', "import { localize } from '../internal/localize.js';"],
      ['src/theme/tokens.ts', "import type { Language } from '../labels/label-types.js';"],
      ['src/chat/message-log.ts', "import { PLATFORM_TOKENS } from '../theme/tokens.js';"],
      ['server/http/app.ts', "import { retryDelay } from '../../src/protocol/retry.js';"],
      ['server/http/auth.ts', "import { SvcClient } from '@svc/agent-sdk';"],
      // Allowed: each imports what it may.
      ['src/elements/svc-chat/svc-chat.ts', "import { persistedChat } from '../../internal/persist.js';"],
      ['src/elements/svc-chat-panel/svc-chat-panel.ts', "import '../svc-sms-sign-in/svc-sms-sign-in.js';"],
      ['src/internal/localize.ts', "import { EN_LABELS } from '../labels/en.js';"],
      ['src/theme/theme.ts', "import { hostThemeRules } from './tokens.js';"],
      ['src/chat/chat-store.ts', "import { retryDelay } from '../protocol/retry.js';"],
      ['src/panel.ts', "export * from './cards/index.js';\nexport * from './elements/svc-chat/svc-chat.js';"],
      ['src/react/index.ts', "import '../elements/svc-chat/svc-chat.js';"],
      ['server/boot/seed.ts', "import { backoff } from '@svc/agent-sdk/protocol';"],
    ]);
    assert.deepEqual(layeringViolations(planted), [
      'src/client/http.ts imports src/chat/chat-store.js: src/client comes before src/chat',
      'src/internal/dom.ts imports src/elements/svc-chat/svc-chat.js: src/internal comes before src/elements',
      'src/elements/message-view/message-view.ts imports src/cards/svc-payment-gate.js: elements and cards import neither each other',
      'src/cards/svc-card.ts imports src/elements/svc-markdown/svc-markdown.js: elements and cards import neither each other',
      'src/protocol/records.ts imports src/client/client.js: src/protocol comes before src/client',
      'src/labels/en.ts imports src/internal/localize.js: src/labels comes before src/internal',
      'src/theme/tokens.ts imports src/labels/label-types.js: labels and theme import neither each other',
      'src/chat/message-log.ts imports src/theme/tokens.js: src/chat comes before src/theme',
      'server/http/app.ts imports ../../src/protocol/retry.js: the service imports only @svc/agent-sdk/protocol',
      'server/http/auth.ts imports @svc/agent-sdk: the service imports only @svc/agent-sdk/protocol',
    ]);
  });

  it('the SDK and the service import only in the direction design.md gives', () => {
    const files = new Map([...sources('src'), ...sources('server')]);
    assert.ok(files.size > 150, `${files.size} files read`);
    assert.deepEqual(layeringViolations(files), []);
  });
});
