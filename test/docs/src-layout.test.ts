import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { namesTwice } from '../helpers/names-twice.js';

/*
 * The SDK's tree as docs/elements.md "Where things are" draws it, held as test/server/layout.test.ts holds the
 * service's: a file's name says what it holds and is unique, and the map names every folder and module. Each
 * detector is first shown to fire on a made-up case.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The folders the map draws, as paths from the repository's root. */
const DRAWN = ['src', 'build'];

/** Every file of `folder` (recursively), as a path from the repository's root. */
const filesOf = (folder: string) =>
  readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(ROOT.length));

const files = DRAWN.flatMap(filesOf);
const modules = files.filter((file) => file.endsWith('.ts'));
const folders = new Set(files.map(dirname).filter((folder) => !DRAWN.includes(folder)));

/**
 * The names that stand twice, but `index.ts`: the entry of its folder (the package's entries `.`, `./protocol`,
 * `./react`, `./tools`, and the cards' registration), which the folder's name names.
 */
const namesTwiceButEntries = (paths: string[]) => namesTwice(paths.filter((path) => basename(path) !== 'index.ts'));

/** The modules (`name.ts`) and folders (`name/`) a map names. */
const namedIn = (map: string) => ({
  modules: new Set(map.match(/[\w.-]+\.ts\b/g)),
  folders: new Set([...map.matchAll(/([\w-]+)\/(?=\s|$)/gm)].map((match) => match[1])),
});

describe('the layout of src/', () => {
  it('has every file name once (but index.ts, the entry of its folder)', () => {
    assert.deepEqual(
      namesTwiceButEntries(['src/chat/list.ts', 'src/elements/list/list.ts', 'src/index.ts', 'src/react/index.ts']),
      ['src/chat/list.ts and src/elements/list/list.ts'],
    );
    assert.ok(modules.length > 100, `${modules.length} modules read`);
    assert.deepEqual(namesTwiceButEntries(files), []);
  });

  it('is the tree the map of docs/elements.md draws, module by module', () => {
    const made = namedIn('src/\n  chat/   a.ts  b.styles.ts (with c.ts)\n    zh-CN.ts loads d/e.js\n');
    assert.deepEqual([...made.modules], ['a.ts', 'b.styles.ts', 'c.ts', 'zh-CN.ts']);
    assert.deepEqual([...made.folders], ['src', 'chat']);

    const doc = readFileSync(join(ROOT, 'docs/elements.md'), 'utf8');
    const map = /### Where things are\n[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(map, 'docs/elements.md has its map in a text block under "Where things are"');
    const named = namedIn(map);
    const names = modules.map((module) => basename(module));
    assert.deepEqual(
      names.filter((name) => !named.modules.has(name)),
      [],
      'modules the map leaves out',
    );
    assert.deepEqual(
      [...named.modules].filter((name) => !names.includes(name)),
      [],
      'names in the map that are no module',
    );
    assert.deepEqual(
      [...folders].map((folder) => basename(folder)).filter((name) => !named.folders.has(name)),
      [],
      'folders the map leaves out',
    );
  });
});
