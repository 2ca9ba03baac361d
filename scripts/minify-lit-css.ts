import type { Plugin } from 'vite';

/**
 * A Vite plugin for the script-tag build: collapses whitespace and drops comments inside the Lit `css`
 * template literals of our sources, which the minifier leaves alone (to it they are strings).
 */
export function minifyLitCss(): Plugin {
  return {
    name: 'svc-minify-lit-css',
    transform(code, id) {
      if (!/\/src\/.*\.ts$/.test(id) || !code.includes('css`')) return null;
      // Our styles hold no backticks, and no strings in which a run of spaces matters. Line breaks stay (a
      // newline costs what a space does), so every line keeps its number and the source map stays right.
      const compact = code.replace(/\bcss`([^`]*)`/g, (_, body: string) => {
        const css = body
          .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]+/g, ''))
          .replace(/\s+/g, (space) => space.replace(/[^\n]/g, '') || ' ')
          .replace(/ ?([{};,>]) ?/g, '$1')
          // Only a declaration has a space after its colon (in a selector, `a :hover` differs from `a:hover`).
          .replace(/: /g, ':');
        return `css\`${css}\``;
      });
      return { code: compact, map: null };
    },
  };
}
