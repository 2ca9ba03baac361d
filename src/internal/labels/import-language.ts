import type { LanguageFile } from './languages.js';
import type { Language } from './types.js';

/** Each language file as a dynamic import, which a site's bundler turns into a chunk of its own. */
const imports: Record<LanguageFile, () => Promise<{ default: Language }>> = {
  'zh-CN': () => import('./zh-CN.js'),
  ar: () => import('./ar.js'),
};

export const importLanguage = (file: LanguageFile): Promise<Language> => imports[file]().then((m) => m.default);
