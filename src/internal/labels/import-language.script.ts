/**
 * The script-tag build's stand-in for `import-language.ts` (vite.config.ts swaps it in): each language is the
 * file `svc-chat-lang-<file>.js` next to `svc-chat.js` or `svc-chat.esm.js`.
 */
import { importBeside } from '../script-base.js';
import type { LanguageFile } from './languages.js';
import type { Language } from './types.js';

export const importLanguage = (file: LanguageFile): Promise<Language> =>
  importBeside(`svc-chat-lang-${file}.js`).then((m: { default: Language }) => m.default);
