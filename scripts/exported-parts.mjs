/**
 * `src/elements/svc-chat-panel/exported-parts.ts`, made from the templates: the parts the panel's templates declare,
 * which it exports to `<svc-chat>`, and the cards' parts, which a card inside the chat exports as `card-…`.
 * `npm run manifest` writes it; `npm run test:manifest` fails when it is not what the templates declare.
 *
 * An element's parts are those its templates declare: the `part` attributes of the Lit `html` templates of its
 * module and of every module it imports (but the modules of other elements, which render in their own shadow
 * roots). A part is a word of `part="…"`, or of the string literals a binding `part=${…}` is made of: a
 * condition's two branches, or, for a parameter, what the function's callers pass for it. A binding made
 * otherwise stops the script, which says where.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
export const PARTS_FILE = 'src/elements/svc-chat-panel/exported-parts.ts';
const PANEL = 'src/elements/svc-chat-panel/svc-chat-panel.ts';
const CARDS = ['src/cards/svc-payment-gate.ts', 'src/cards/svc-info-collect.ts', 'src/cards/svc-connector-setup.ts'];

/** A program of the modules `files` and what they import, with its type checker (to follow a parameter). */
function program(files) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} };
  const { options } = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, host);
  const made = ts.createProgram({ rootNames: files, options });
  return { made, checker: made.getTypeChecker() };
}

/** The tag a module registers (`X.define('svc-…')`), if it registers one. */
function definedTag(source) {
  return /\.define\('(svc-[a-z-]+)'\)/.exec(source.text)?.[1];
}

/** The module and every module it imports but type-only imports and other elements' modules: what renders in its root. */
function rendering(made, entry) {
  const tag = definedTag(made.getSourceFile(entry));
  const seen = new Set([entry]);
  for (const file of seen) {
    for (const statement of made.getSourceFile(file).statements) {
      if (!ts.isImportDeclaration(statement) || statement.importClause?.isTypeOnly) continue;
      const specifier = statement.moduleSpecifier.text;
      if (!specifier.startsWith('.')) continue;
      const imported = join(dirname(file), specifier).replace(/\.js$/, '.ts');
      const other = definedTag(made.getSourceFile(imported));
      if (!other || other === tag) seen.add(imported);
    }
  }
  return [...seen];
}

/** Where a node is, for an error: `src/…/file.ts:line`. */
function where(node) {
  const source = node.getSourceFile();
  return `${relative(ROOT, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
}

/** The part names an expression bound to `part` can have. */
function literalsOf(expression, context) {
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return words(expression.text);
  if (ts.isParenthesizedExpression(expression)) return literalsOf(expression.expression, context);
  if (ts.isConditionalExpression(expression))
    return [...literalsOf(expression.whenTrue, context), ...literalsOf(expression.whenFalse, context)];
  const declaration = ts.isIdentifier(expression) && context.checker.getSymbolAtLocation(expression)?.valueDeclaration;
  if (declaration && ts.isParameter(declaration)) return passedFor(declaration, context);
  throw new Error(
    `${where(expression)}: a part bound to \`${expression.getText()}\`: write its names as string literals`,
  );
}

/** What every call of a parameter's function passes for it. */
function passedFor(parameter, context) {
  const fn = parameter.parent;
  const index = fn.parameters.indexOf(parameter);
  const names = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && declarationOf(node.expression, context) === fn) {
      const argument = node.arguments[index];
      if (argument) names.push(...literalsOf(argument, context));
    }
    ts.forEachChild(node, visit);
  };
  for (const source of context.made.getSourceFiles()) if (!source.isDeclarationFile) visit(source);
  if (!names.length) throw new Error(`${where(parameter)}: no call passes a part for \`${parameter.name.getText()}\``);
  return names;
}

/** The function a callee names (through an import): a function declaration, or a variable holding a function. */
function declarationOf(callee, { checker }) {
  const symbol = checker.getSymbolAtLocation(callee);
  const declaration = (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)
    ?.valueDeclaration;
  return declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : declaration;
}

const words = (text) => text.split(/\s+/).filter(Boolean);

/** The parts the `html` templates of a module declare. */
function templateParts(source, context) {
  const names = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'html') {
      const { template } = node;
      const texts = ts.isNoSubstitutionTemplateLiteral(template)
        ? [template.text]
        : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)];
      const expressions = ts.isNoSubstitutionTemplateLiteral(template)
        ? []
        : template.templateSpans.map((s) => s.expression);
      for (const [, value] of texts.join('\u0000').matchAll(/\spart="([^"]*)"/g))
        names.push(...words(value.replaceAll('\u0000', ' ')));
      texts.forEach((text, i) => {
        // `part=${…}`, or an expression inside `part="…"`.
        if (i < expressions.length && /\spart=("[^"]*)?$/.test(text))
          names.push(...literalsOf(expressions[i], context));
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The parts each element declares, by its module (a path): the words of its templates' parts, each once. */
export function elementParts(entries) {
  const context = program(entries);
  return entries.map((entry) => {
    const names = rendering(context.made, entry).flatMap((file) =>
      templateParts(context.made.getSourceFile(file), context),
    );
    return [...new Set(names)];
  });
}

/**
 * The text of {@link PARTS_FILE}: the words in the order the templates declare them (as in the panel's file,
 * where gzip finds them again), and the `exportparts` made of them.
 */
export function exportedParts() {
  const [panel, ...cards] = elementParts([PANEL, ...CARDS].map((file) => join(ROOT, file)));
  return `// Made from the templates by scripts/exported-parts.mjs (\`npm run manifest\`): do not edit.

/** The parts the panel's templates declare (those of \`<svc-chat-panel>\` and of the modules it renders with). */
const PANEL_PARTS =
  '${panel.join(' ')}';

/** The parts the cards' templates declare (\`<svc-payment-gate>\`, \`<svc-info-collect>\`, \`<svc-connector-setup>\`). */
const CARD_PARTS =
  '${[...new Set(cards.flat())].join(' ')}';
const cards = CARD_PARTS.split(' ');

/**
 * A card's \`exportparts\` inside the chat: each of its parts under its \`card-\` name, so that a page styles a card
 * inside the chat as it styles one alone (\`svc-chat::part(card-button)\`).
 */
export const CARD_EXPORTS = cards.map((name) => \`\${name}:card-\${name}\`).join(',');

/** The panel's \`exportparts\`: its parts and the cards', so that a page styles each as \`svc-chat::part(…)\`. */
export const PANEL_EXPORTS = [...PANEL_PARTS.split(' '), ...cards.map((name) => \`card-\${name}\`)].join(',');
`;
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(join(ROOT, PARTS_FILE), exportedParts());
