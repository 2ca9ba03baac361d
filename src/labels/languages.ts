/**
 * The built-in languages besides English, by primary language subtag: the file of this folder that holds
 * each. Adding a language is its file and one line here (the typecheck then asks for its import in
 * `language-files.ts`). English is always there; the others load when an element first shows them.
 */
export const LANGUAGE_FILES = { zh: 'zh-CN', ar: 'ar' } as const;
export type LanguageFile = (typeof LANGUAGE_FILES)[keyof typeof LANGUAGE_FILES];

/** Languages written right to left, by primary subtag: with one of these the chat lays itself out mirrored. */
const RIGHT_TO_LEFT = /^(ar|arc|ckb|dv|fa|he|iw|ks|ps|sd|syr|ug|ur|yi)$/;

const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0]!;

/** The built-in language of a BCP 47 tag, by its primary subtag (`zh-TW` gets `zh-CN`); none for English. */
export const languageFile = (tag: string): LanguageFile | undefined =>
  (LANGUAGE_FILES as Record<string, LanguageFile | undefined>)[primary(tag)];

/** True for a language written right to left (`ar`, `he`, `fa`, …), built in or not. */
export function isRightToLeft(tag: string): boolean {
  return RIGHT_TO_LEFT.test(primary(tag));
}
