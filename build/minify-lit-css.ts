import minifyHtmlLiterals from '@lit-labs/rollup-plugin-minify-html-literals';
import { transform } from 'lightningcss';

/**
 * CSS of a Lit `css` template, minified by lightningcss (what the template minifier uses). The minifier stands
 * a placeholder (`@TEMPLATE_EXPRESSION();`) for each `${…}` in the template, which lightningcss cannot parse
 * inside a value (`border: 1px solid ${token('colorBorder')}`): each becomes a numbered identifier for the
 * parse, and the placeholder again after it. Should the minified CSS move an expression before another (it
 * writes a `font` family after a `color`), this throws and says where, since the template's expressions keep
 * their order: the fix is to write the declarations in lightningcss's order. Left unminified, the sign-in's
 * styles once cost the panel 157 B gzip unnoticed.
 */
export function minifyLitCss(css: string): string {
  let count = 0;
  const named = css.replace(/@TEMPLATE_EXPRESSION_*\(\);?/g, () => `__svc_${count++}__`);
  const min = transform({ filename: 'template.css', code: Buffer.from(named), minify: true }).code.toString();
  const order = [...min.matchAll(/__svc_(\d+)__/g)].map((m) => Number(m[1]));
  if (order.length !== count || order.some((n, i) => n !== i)) {
    throw new Error(`lightningcss reorders the expressions of this template; write them in its order:\n${min}`);
  }
  return min.replace(/__svc_\d+__/g, '@TEMPLATE_EXPRESSION();');
}

/**
 * Lit's `css` and `html` templates of the files `include` names (globs from the working folder) minified; a
 * template it cannot minify fails the build. The launcher's styles are plain strings, left as written.
 */
export const minifyLitTemplates = (include = ['src/**/*.ts']) =>
  minifyHtmlLiterals({
    include,
    failOnError: true,
    options: { minifyOptions: { minifyCSS: minifyLitCss } },
  });
