/** docs/elements.md's table of `<svc-chat>`'s attributes and properties, from custom-elements.json. */
export declare const DOC: string;
/** The line before the table in the doc. */
export declare const MARK: string;
export declare function attributeTable(manifest: unknown): string;
export declare function withAttributeTable(doc: string, manifest: unknown): string;
