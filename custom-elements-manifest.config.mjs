/**
 * Custom Elements Manifest (`custom-elements.json`, read by IDEs and Storybook) from the JSDoc of the
 * elements and cards: `npm run manifest` writes it; `npm test` checks it is current (scripts/check-manifest.mjs).
 */

import { readFileSync } from 'node:fs';

/** `X.define('svc-tag')` with a string literal: the class and tag it registers. */
function readDefine(ts, node) {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  const { expression: target, name } = node.expression;
  const [tag] = node.arguments;
  if (name.text !== 'define' || !ts.isIdentifier(target) || !tag || !ts.isStringLiteral(tag)) return undefined;
  return { className: target.text, tagName: tag.text };
}

/** Names declared `state: true` in a class's `static properties`: internal reactive state, not attributes. */
function readStateProperties(ts, node) {
  const names = [];
  for (const member of node.members) {
    const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
    if (!isStatic || member.name?.getText() !== 'properties' || !member.initializer) continue;
    if (!ts.isObjectLiteralExpression(member.initializer)) continue;
    for (const property of member.initializer.properties) {
      const options = ts.isPropertyAssignment(property) ? property.initializer : undefined;
      const state =
        options &&
        ts.isObjectLiteralExpression(options) &&
        options.properties.some(
          (o) => o.name?.getText() === 'state' && o.initializer?.kind === ts.SyntaxKind.TrueKeyword,
        );
      if (state) names.push(property.name.getText());
    }
  }
  return names;
}

/** `type ChatMode = 'inline' | 'launcher'`: the alias's name and the union of literals it stands for, else none. */
function readLiteralUnion(ts, node) {
  if (!ts.isTypeAliasDeclaration(node) || !ts.isUnionTypeNode(node.type)) return undefined;
  if (!node.type.types.every((type) => ts.isLiteralTypeNode(type))) return undefined;
  return [node.name.text, node.type.getText()];
}

/**
 * A field's or attribute's type written as the union an alias of its module stands for (`ChatMode` →
 * `'inline' | 'launcher'`): the docs table and the editors' data list an attribute's values from it, while
 * TypeScript users still meet the alias by name.
 */
function spellOutAliases(declaration, aliases) {
  for (const item of [...(declaration.members ?? []), ...(declaration.attributes ?? [])]) {
    const [name, optional] = item.type?.text.split(' | undefined') ?? [];
    if (aliases.has(name)) item.type.text = `${aliases.get(name)}${optional === undefined ? '' : ' | undefined'}`;
  }
}

/** What Lit's analyzer plugin leaves out of a class's members (its `member-denylist.js`). */
const LIT_STATICS = new Set(['properties', 'styles']);

/**
 * The events each module declares in `GlobalEventHandlersEventMap` (`'svc-copy': CustomEvent<{ text: string }>`):
 * name → the type's text on one line. The analyzer reads an event's name from `@fires`, and its type from here,
 * the declaration TypeScript users get, so the two cannot drift.
 */
function readEventMap(ts, node, into) {
  if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'GlobalEventHandlersEventMap') return;
  for (const member of node.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isStringLiteral(member.name)) continue;
    into.set(member.name.text, member.type.getText().replace(/\s+/g, ' ').replace(/;? }/g, ' }'));
  }
}

/** `src/elements/svc-chat/svc-chat.ts` → `dist/lib/elements/svc-chat/svc-chat.js`: the module a user's tools find in the package. */
const shipped = (path) => path.replace(/^\/?src\/(.*)\.[jt]s$/, 'dist/lib/$1.js');

/** Every module path of the manifest (`path`, and the `module` of references) as the shipped JavaScript. */
function shippedPaths(value) {
  if (Array.isArray(value)) for (const item of value) shippedPaths(item);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if ((key === 'path' || key === 'module') && typeof item === 'string') value[key] = shipped(item);
      else shippedPaths(item);
    }
  }
}

/** A class's or mixin's members without Lit's statics, `#private` members and `state` properties (`state`). */
function publicMembersOnly(declaration, state) {
  // Lit's plugin leaves a class's `static properties` and `styles` out of its members; a mixin's too.
  if (declaration.kind === 'mixin') declaration.members = declaration.members?.filter((m) => !LIT_STATICS.has(m.name));
  if (declaration.kind !== 'class') return;
  declaration.members = declaration.members?.filter((m) => m.privacy !== 'private' && !state.has(m.name));
  declaration.attributes = declaration.attributes?.filter((a) => !state.has(a.fieldName));
}

/**
 * Fits the analyzer to our conventions: elements register with `SvcChat.define('svc-chat')` (tolerant of a
 * second registration), which it does not recognise, and the generic `customElements.define(tag, this)` in
 * that helper is no element; `state: true` properties and `#private` members are not public API; and the
 * manifest lists the public elements only, each with what it inherits from its base classes (which, like every
 * other export of these modules, are left out).
 */
function svcConventionsPlugin() {
  const stateByClass = new Map();
  const eventTypes = new Map();
  const aliasesByModule = new Map();
  return {
    name: 'svc-conventions',
    analyzePhase({ ts, node, moduleDoc }) {
      readEventMap(ts, node, eventTypes);
      const alias = readLiteralUnion(ts, node);
      if (alias) aliasesByModule.set(moduleDoc.path, new Map([...(aliasesByModule.get(moduleDoc.path) ?? []), alias]));
      if (ts.isClassDeclaration(node) && node.name) {
        stateByClass.set(`${moduleDoc.path}#${node.name.text}`, readStateProperties(ts, node));
        return;
      }
      const defined = readDefine(ts, node);
      const declaration =
        defined && moduleDoc.declarations?.find((d) => d.kind === 'class' && d.name === defined.className);
      if (!declaration) return;
      declaration.customElement = true;
      declaration.tagName = defined.tagName;
      moduleDoc.exports = [
        ...(moduleDoc.exports ?? []),
        {
          kind: 'custom-element-definition',
          name: defined.tagName,
          declaration: { name: defined.className, module: moduleDoc.path },
        },
      ];
    },
    moduleLinkPhase({ moduleDoc }) {
      const exported = new Set((moduleDoc.exports ?? []).map((e) => e.declaration.name));
      moduleDoc.declarations = (moduleDoc.declarations ?? []).filter((d) => exported.has(d.name));
      const elements = new Set(moduleDoc.declarations.filter((d) => d.customElement).map((d) => d.name));
      moduleDoc.exports = (moduleDoc.exports ?? []).filter(
        (e) => e.kind !== 'custom-element-definition' || elements.has(e.declaration.name),
      );
      for (const declaration of moduleDoc.declarations) {
        spellOutAliases(declaration, aliasesByModule.get(moduleDoc.path) ?? new Map());
        publicMembersOnly(declaration, new Set(stateByClass.get(`${moduleDoc.path}#${declaration.name}`)));
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      // After the analyzer copied inherited members into each element (its own package link phase).
      for (const moduleDoc of customElementsManifest.modules) {
        moduleDoc.declarations = (moduleDoc.declarations ?? []).filter((d) => d.customElement && d.tagName);
        const elements = new Set(moduleDoc.declarations.map((d) => d.name));
        moduleDoc.exports = (moduleDoc.exports ?? []).filter((e) => elements.has(e.declaration.name));
      }
      customElementsManifest.modules = customElementsManifest.modules.filter((m) => m.declarations.length);
      for (const { declarations } of customElementsManifest.modules) {
        for (const event of declarations.flatMap((d) => d.events ?? [])) {
          const type = eventTypes.get(event.name);
          if (!type) throw new Error(`${event.name} is fired but not declared in GlobalEventHandlersEventMap`);
          event.type ??= { text: type };
        }
      }
      shippedPaths(customElementsManifest);
    },
  };
}

export default {
  // The elements, and the base classes and the chat's settings (a mixin) they inherit members from.
  globs: [
    'src/elements/*/svc-*.ts',
    'src/elements/svc-chat/chat-settings.ts',
    'src/cards/svc-*.ts',
    'src/internal/svc-*.ts',
  ],
  // `<svc-chat-panel>` is the chat's own: a page meets it only as `<svc-chat>`, which exports its parts.
  exclude: ['src/**/*.styles.ts', 'src/elements/svc-chat-panel/svc-chat-panel.ts'],
  outdir: '.',
  litelement: true,
  // package.json already names the manifest; the check writes to a temporary folder and must not touch it.
  packagejson: false,
  plugins: [svcConventionsPlugin()],
  // globby matches the patterns at once and lists files in the order its reads finish, which varies on a cold
  // disk: sorted, the manifest comes out the same on every run.
  overrideModuleCreation: ({ ts, globs }) =>
    globs.toSorted().map((glob) => ts.createSourceFile(glob, readFileSync(glob, 'utf8'), ts.ScriptTarget.ES2015, true)),
};
