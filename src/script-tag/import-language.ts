import type { LanguageFile } from '../internal/labels/languages.js';
import type { Language } from '../internal/labels/types.js';
import { importNextToScript } from './next-to-script.js';

/**
 * `internal/labels/import-language.ts` in the launcher's files: each language is `svc-chat-lang-<file>.js`,
 * next to the script (the same file the panel's own import of it loads).
 */
export const importLanguage = (file: LanguageFile): Promise<Language> =>
  importNextToScript<{ default: Language }>(`svc-chat-lang-${file}.js`).then((m) => m.default);
