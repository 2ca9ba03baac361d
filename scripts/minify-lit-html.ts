import type { Plugin } from 'vite';

interface Node {
  type?: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/**
 * A Vite plugin for the script-tag build: drops the indentation in the Lit `html` and `svg` templates of our
 * sources, which the minifier leaves alone (to it they are strings). Only whitespace that holds a line break
 * goes, and its line breaks stay: between tags and around bindings that whitespace renders as one space or
 * nothing either way (no template puts it inside `<pre>`, `<textarea>` or a `white-space: pre` element), and
 * every line keeps its number, so the source map stays right. Parsed, not matched, because templates nest.
 */
export function minifyLitHtml(): Plugin {
  return {
    name: 'svc-minify-lit-html',
    transform(code, id) {
      if (!/\/src\/.*\.ts$/.test(id) || !/\b(html|svg)`/.test(code)) return null;
      const texts: Node[] = [];
      const visit = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        if (Array.isArray(node)) {
          for (const item of node) visit(item);
          return;
        }
        const n = node as Node;
        const tag = n.tag as { type: string; name: string } | undefined;
        if (n.type === 'TaggedTemplateExpression' && tag?.type === 'Identifier' && /^(html|svg)$/.test(tag.name)) {
          texts.push(...(n.quasi as { quasis: Node[] }).quasis);
        }
        for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
      };
      visit(this.parse(code));
      let out = code;
      for (const { start, end } of texts.sort((a, b) => b.start - a.start)) {
        const text = out.slice(start, end).replace(/\s*\n\s*/g, (space) => space.replace(/[^\n]/g, ''));
        out = out.slice(0, start) + text + out.slice(end);
      }
      return { code: out, map: null };
    },
  };
}
