import bash from '@speed-highlight/core/languages/bash.js';
import css from '@speed-highlight/core/languages/css.js';
import diff from '@speed-highlight/core/languages/diff.js';
import html from '@speed-highlight/core/languages/html.js';
import js from '@speed-highlight/core/languages/js.js';
import jsdoc from '@speed-highlight/core/languages/jsdoc.js';
import json from '@speed-highlight/core/languages/json.js';
import py from '@speed-highlight/core/languages/py.js';
import regex from '@speed-highlight/core/languages/regex.js';
import sql from '@speed-highlight/core/languages/sql.js';
import todo from '@speed-highlight/core/languages/todo.js';
import ts from '@speed-highlight/core/languages/ts.js';
import xml from '@speed-highlight/core/languages/xml.js';
import yaml from '@speed-highlight/core/languages/yaml.js';
import { tokenizeWith } from '@speed-highlight/core/tokenize';

/**
 * The code highlighter (speed-highlight's tokenizer and the common languages), a module of its own that the
 * markdown engine loads when a code block first settles: `svc-chat-highlight.js` in the script-tag files
 * (docs/performance.md, highlighted code). It only finds tokens; the engine sanitizes what `highlight` returns.
 */

/** The languages, by the names speed-highlight's languages refer to each other with (`sub: 'js'`). */
const LANGUAGES = { bash, css, diff, html, js, jsdoc, json, py, regex, sql, todo, ts, xml, yaml };
type Name = keyof typeof LANGUAGES;

/** The names a fence may give (```js, ```python, …), lower case, to the language. */
const ALIASES: Record<string, Name> = {
  javascript: 'js',
  jsx: 'js',
  mjs: 'js',
  cjs: 'js',
  typescript: 'ts',
  tsx: 'ts',
  mts: 'ts',
  jsonc: 'json',
  json5: 'json',
  htm: 'html',
  svg: 'xml',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  shellsession: 'bash',
  python: 'py',
  python3: 'py',
  yml: 'yaml',
  patch: 'diff',
  postgresql: 'sql',
  mysql: 'sql',
  sqlite: 'sql',
};
const NOT_A_LANGUAGE = new Set(['jsdoc', 'regex', 'todo']);

/** The language of a fence's info string, if it is one we highlight. */
export function language(info: string): Name | undefined {
  const name = info.toLowerCase();
  const found = ALIASES[name] ?? (name in LANGUAGES && !NOT_A_LANGUAGE.has(name) ? (name as Name) : undefined);
  return found;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/**
 * The code as HTML: its text escaped, each token in `<span class="tok-<type>">` (`kwd`, `str`, `num`, `cmnt`,
 * `func`, `class`, `var`, `oper`, `bool`, `type`, …). The engine sanitizes it before it reaches the DOM.
 */
export function highlight(code: string, name: Name): string {
  let out = '';
  tokenizeWith(
    code,
    LANGUAGES[name],
    (text, type) => {
      if (!text) return;
      out += type ? `<span class="tok-${escapeHtml(type)}">${escapeHtml(text)}</span>` : escapeHtml(text);
    },
    { languages: LANGUAGES },
  );
  return out;
}
