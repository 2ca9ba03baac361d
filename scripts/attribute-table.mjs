/**
 * docs/elements.md's table of `<svc-chat>`'s attributes and properties, made from `custom-elements.json` (so from
 * the JSDoc of `ChatSettingsMixin`, `SvcChat` and its base): `npm run manifest` writes it after the manifest,
 * and `npm run test:manifest` fails when the table is not what the manifest makes. Run from the repository's root.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const DOC = 'docs/elements.md';
/** The line before the table in the doc: the table is the rows that follow it. */
export const MARK =
  '<!-- Made from custom-elements.json by `npm run manifest` (scripts/attribute-table.mjs): edit the JSDoc, not the table. -->';

/** A type as the docs write it: `string`, `boolean`, `` `inline` \| `launcher` ``, `` `Partial<ChatLabels>` ``. */
function typeCell(type) {
  const text = type.replace(/ \| undefined$/, '');
  if (text === 'string' || text === 'boolean') return text;
  const literals = text.split(' | ');
  if (literals.every((l) => /^'[^']*'$/.test(l))) return literals.map((l) => `\`${l.slice(1, -1)}\``).join(' \\| ');
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** A default as the docs write it: a value as code (`` `inline` ``, `` `false` ``), a `@default` sentence as it is. */
function defaultCell(value) {
  if (value === undefined) return '';
  if (/^'[^']*'$/.test(value)) return `\`${value.slice(1, -1)}\``;
  if (/^(true|false|-?\d+)$/.test(value)) return `\`${value}\``;
  return value;
}

const oneLine = (text = '') => text.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');

/** Markdown table rows, each column as wide as its widest cell (as the docs' other tables). */
function table(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The table of `<svc-chat>`: every attribute, then every property a page sets that has none. */
export function attributeTable(manifest) {
  const chat = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'svc-chat');
  /** Attributes before properties; within each, the settings' (the mixin's), the element's own, its base's. */
  const rank = (field) => {
    const from = field.inheritedFrom?.name;
    const origin = from === undefined ? 1 : chat.mixins?.some((mixin) => mixin.name === from) ? 0 : 2;
    return (field.attribute ? 0 : 3) + origin;
  };
  const settable = (member) =>
    member.kind === 'field' && !member.static && !member.readonly && (member.privacy ?? 'public') === 'public';
  const rows = chat.members
    .filter(settable)
    .toSorted((a, b) => rank(a) - rank(b))
    .map((field) => [
      field.attribute ? `\`${field.attribute}\`` : '',
      `\`${field.name}\``,
      typeCell(field.type?.text ?? ''),
      defaultCell(field.default),
      oneLine(field.description),
    ]);
  return table(['Attribute', 'Property', 'Type', 'Default', 'Meaning'], rows);
}

/** The doc's text with its table after {@link MARK} made again from `manifest`. */
export function withAttributeTable(doc, manifest) {
  const lines = doc.split('\n');
  const start = lines.indexOf(MARK);
  if (start < 0) throw new Error(`${DOC} has no line ${MARK}`);
  let end = start + 1;
  while (lines[end]?.startsWith('|')) end += 1;
  return [...lines.slice(0, start + 1), attributeTable(manifest), ...lines.slice(end)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
  writeFileSync(DOC, withAttributeTable(readFileSync(DOC, 'utf8'), manifest));
}
