import en from './en.js';
import { importLanguage } from './import-language.js';
import { type LanguageFile, languageFile } from './languages.js';
import type { Language } from './types.js';

const loaded = new Map<LanguageFile, Language>();
const loading = new Map<LanguageFile, Promise<Language>>();

/** The labels for a BCP 47 tag if they are here now: English, or a language already loaded. */
export function languageNow(tag: string): Language | undefined {
  const file = languageFile(tag);
  return file ? loaded.get(file) : en;
}

/**
 * The labels for a BCP 47 tag: a built-in language by its primary subtag (`zh-TW` gets `zh-CN`), English for
 * any other. Every caller shares one load; after a failure (the file was not deployed next to the script)
 * the next caller tries again, and until then the elements show English.
 */
export function loadLanguage(tag: string): Promise<Language> {
  const file = languageFile(tag);
  if (!file) return Promise.resolve(en);
  const done = loaded.get(file);
  if (done) return Promise.resolve(done);
  let load = loading.get(file);
  if (!load) {
    load = importLanguage(file).then(
      (language) => {
        loaded.set(file, language);
        return language;
      },
      (error: unknown) => {
        loading.delete(file);
        throw error;
      },
    );
    loading.set(file, load);
  }
  return load;
}
