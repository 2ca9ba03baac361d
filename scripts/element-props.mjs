/**
 * `src/element-props.ts` from `custom-elements.json`: each element's attributes, properties and events as JSX
 * props, typed by the element's own class. `npm run manifest` writes it beside the manifest; `npm run
 * test:manifest` fails when it is not what the manifest makes. `elementProps(manifest)` is the file's text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
export const ELEMENT_PROPS_FILE = 'src/element-props.ts';

/** A JSDoc block of `text` at `indent`: one line where the text is one. */
function doc(text, indent) {
  if (!text) return '';
  if (!text.includes('\n')) return `${indent}/** ${text} */\n`;
  const lines = text.split('\n').map((line) => `${indent} * ${line}`.trimEnd());
  return `${indent}/**\n${lines.join('\n')}\n${indent} */\n`;
}
/** `'base-url'` for a name that is not an identifier. */
const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);

/** A field's JSDoc as its declaration has it: the description, then its `@default` (as docs/elements.md's table). */
const fieldDoc = ({ description = '', default: value }) =>
  value === undefined ? description : `${description}${description ? '\n' : ''}@default ${value}`;

/** The props of one element declaration: attributes (by their names), settable properties, `on<event>`. */
function props(element) {
  const lines = [];
  const add = (name, type, description) => lines.push(`${doc(description, '    ')}    ${key(name)}?: ${type};`);
  const type = (field) => `${element.name}['${field}']`;
  for (const attribute of element.attributes ?? []) {
    if (attribute.fieldName) add(attribute.name, type(attribute.fieldName), fieldDoc(attribute));
  }
  const settable = (member) =>
    member.kind === 'field' && !member.static && !member.readonly && (member.privacy ?? 'public') === 'public';
  for (const member of (element.members ?? []).filter(settable)) {
    if (member.attribute !== member.name) add(member.name, type(member.name), fieldDoc(member));
  }
  for (const event of element.events ?? []) {
    add(`on${event.name}`, `(event: GlobalEventHandlersEventMap['${event.name}']) => void`, event.description);
  }
  return lines.join('\n');
}

export function elementProps(manifest) {
  const elements = manifest.modules.flatMap((module) =>
    (module.declarations ?? [])
      .filter((declaration) => declaration.customElement && declaration.tagName)
      .map((declaration) => ({ ...declaration, from: module.path.replace(/^dist\/lib\//, './') })),
  );
  const imports = elements
    .toSorted((a, b) => a.from.localeCompare(b.from))
    .map(({ name, from }) => `import type { ${name} } from '${from}';`);
  const tags = elements.map((element) => `  '${element.tagName}': {\n${props(element)}\n  };`);
  return `// Generated from custom-elements.json by scripts/element-props.mjs (\`npm run manifest\`): do not edit.
${imports.join('\n')}

/**
 * Each element's attributes (by their names: what a server renders), its settable properties and its events as
 * \`on\` + the event's name (React 19 and Preact add such a prop as a listener of that event), by tag.
 * \`@svc/agent-sdk/react\` gives them to React's JSX; a Preact or Solid project extends its own
 * \`IntrinsicElements\` with them (docs/elements.md).
 */
export interface SvcElementProps {
${tags.join('\n')}
}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8'));
  writeFileSync(join(ROOT, ELEMENT_PROPS_FILE), elementProps(manifest));
}
