import en from './en.js';
import type { Language } from './label-types.js';
import { loadLanguageFile } from './language-files.js';
import { languageFile } from './languages.js';

/**
 * The labels for a BCP 47 tag: a built-in language by its primary subtag (`zh-TW` gets `zh-CN`), English for
 * any other. Another language than English loads once, from its own file.
 */
export function loadLanguage(tag: string): Promise<Language> {
  const file = languageFile(tag);
  return file ? loadLanguageFile(file) : Promise.resolve(en);
}
