import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { elementParts } from '../../scripts/exported-parts.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-parts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the modules `files` (name → source) in a folder of their own and returns the path of each. */
function modules(files: Record<string, string>): Record<string, string> {
  const folder = mkdtempSync(join(dir, 'case-'));
  return Object.fromEntries(
    Object.entries(files).map(([name, source]) => {
      writeFileSync(join(folder, name), source);
      return [name, join(folder, name)];
    }),
  );
}

describe('scripts/exported-parts: the parts an element declares, from its templates', () => {
  it("reads part attributes, a condition's branches, and what callers pass for a parameter, in every module the element imports", () => {
    const paths = modules({
      'el.ts': `import { html } from 'lit';
        import { row, prompts } from './rows.js';
        import type { Unused } from './types-only.js';
        import './other-element.js';
        export const render = (running: boolean) => html\`<div part="panel header">
          <button part=\${running ? 'stop-button' : 'send-button'}></button>\${row()}\${prompts('suggestions')}</div>\`;
        El.define('svc-el');`,
      'rows.ts': `import { html } from 'lit';
        const button = (part: string) => html\`<button part=\${part}></button>\`;
        export const row = () => html\`<p part="row">\${button('copy-button')}\${button('edit-button')}</p>\`;
        export function prompts(group: string) { return html\`<div part=\${group}></div>\`; }`,
      'types-only.ts': `import { html } from 'lit';
        export type Unused = string; export const t = html\`<i part="from-a-type-import"></i>\`;`,
      'other-element.ts': `import { html } from 'lit';
        export const t = html\`<i part="its-own-root"></i>\`; Other.define('svc-other');`,
    });
    const [parts] = elementParts([paths['el.ts']!]);
    assert.deepEqual(parts!.toSorted(), [
      'copy-button',
      'edit-button',
      'header',
      'panel',
      'row',
      'send-button',
      'stop-button',
      'suggestions',
    ]);
  });

  it('stops at a binding it cannot read, and says where', () => {
    const paths = modules({
      'el.ts': `import { html } from 'lit';
        const name = () => 'computed';
        export const t = html\`<div part=\${name()}></div>\`;`,
    });
    assert.throws(
      () => elementParts([paths['el.ts']!]),
      /el\.ts:3: a part bound to `name\(\)`: write its names as string literals/,
    );
  });
});
