/** The generated module of the parts the panel and the cards export, from the repository's root. */
export declare const PARTS_FILE: string;
/** The parts each element declares in its templates, by its module (an absolute path), sorted. */
export declare function elementParts(entries: string[]): string[][];
/** The text of {@link PARTS_FILE}. */
export declare function exportedParts(): string;
