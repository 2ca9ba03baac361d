import type { Language } from './label-types.js';
import { type LanguageFile, languageFile } from './languages.js';

/** Each language's file as a dynamic import: a chunk of a site's bundle, `svc-chat-lang-<file>.js` of the script tag. */
const imports: Record<LanguageFile, () => Promise<{ default: Language }>> = {
  'zh-CN': () => import('./zh-CN.js'),
  ar: () => import('./ar.js'),
};

const loaded = new Map<LanguageFile, Language>();
const loading = new Map<LanguageFile, Promise<Language>>();

/** The labels of a built-in language besides English if they are here now (English has no file). */
export function languageNow(tag: string): Language | undefined {
  const file = languageFile(tag);
  return file ? loaded.get(file) : undefined;
}

/**
 * Loads the file of a language besides English. Every caller shares one load; after a failure (the file was
 * not deployed next to the script) the next caller tries again, and until then the elements show English.
 */
export function loadLanguageFile(file: LanguageFile): Promise<Language> {
  const done = loaded.get(file);
  if (done) return Promise.resolve(done);
  let load = loading.get(file);
  if (!load) {
    load = imports[file]().then(
      ({ default: language }) => {
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
