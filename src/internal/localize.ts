import en from '../labels/en.js';
import type { Language } from '../labels/label-types.js';
import { LanguageController } from './language.js';

/** Every label of an element's language, English until another has loaded. */
export const localize = (host: ConstructorParameters<typeof LanguageController>[0]): LanguageController<Language> =>
  new LanguageController(host, en, (language) => language);
