import { css } from 'lit';

export default css`
  :host {
    display: block;
    color: var(--svc-color-text, inherit);
    line-height: 1.55;
    overflow-wrap: anywhere;
    --_border: var(--svc-color-border, rgb(127 127 127 / 0.3));
    --_code-bg: var(--svc-color-code-bg, rgb(127 127 127 / 0.12));
    --_radius: var(--svc-radius-s, 6px);
  }
  /*
   * A streamed reply's settled blocks sit in boxes (stream-markdown.ts) that are laid out and painted apart
   * from the growing tail, and not at all while off screen (docs/performance.md, paced streaming). Blocks are
   * spaced by bottom margins and headings' top padding only, since margins do not collapse across a box: a
   * reply looks the same boxed (streamed) and not (rendered whole). The clip margin keeps focus rings whole.
   */
  .settled {
    content-visibility: auto;
    contain-intrinsic-size: auto 300px;
    overflow-clip-margin: 4px;
  }
  [part='base'] > :first-child,
  [part='base'] > .settled:first-child > :first-child {
    padding-top: 0;
  }
  [part='base'] > :last-child,
  [part='base'] > .settled:last-child > :last-child {
    margin-bottom: 0;
  }
  /*
   * Each block takes the direction of its own text (an English reply in an Arabic chat reads left to right),
   * code always runs left to right.
   */
  p, li, h1, h2, h3, h4, h5, h6, blockquote, td, th, dt, dd, .plain {
    unicode-bidi: plaintext;
  }
  pre {
    direction: ltr;
  }
  /* The text before the markdown renderer has loaded. */
  .plain {
    white-space: pre-wrap;
  }
  h1, h2, h3, h4, h5, h6 {
    margin: 0 0 0.5em;
    padding-top: 0.35em;
    font-weight: 600;
    line-height: 1.25;
  }
  h1 {
    font-size: 1.5em;
  }
  h2 {
    font-size: 1.3em;
  }
  h3 {
    font-size: 1.15em;
  }
  h4, h5, h6 {
    font-size: 1em;
  }
  p, ul, ol, dl, blockquote, pre, table, details, figure {
    margin: 0 0 0.75em;
  }
  ul, ol {
    padding-inline-start: 1.5em;
  }
  li > ul, li > ol {
    margin: 0.2em 0;
  }
  a {
    color: var(--svc-color-link, #2563eb);
    text-underline-offset: 2px;
  }
  code, kbd, samp, pre {
    font-family: var(--svc-font-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
    font-size: 0.9em;
  }
  :not(pre) > code {
    padding: 0.1em 0.35em;
    border-radius: var(--_radius);
    background: var(--_code-bg);
  }
  pre {
    overflow-x: auto;
    padding: 0.75em 1em;
    border-radius: var(--_radius);
    background: var(--_code-bg);
    line-height: 1.45;
    tab-size: 2;
  }
  pre code {
    font-size: inherit;
  }
  /*
   * Highlighted code (highlight.ts): colours from the theme's tokens, so the light and the dark theme
   * (and a page's own tokens) each have theirs; every one is legible on --svc-color-code-bg in both themes.
   */
  .tok-kwd, .tok-type, .tok-section {
    color: var(--svc-color-primary, #4f46e5);
  }
  .tok-str, .tok-insert {
    color: var(--svc-color-success, #1a7f37);
  }
  .tok-num, .tok-bool, .tok-err, .tok-deleted {
    color: var(--svc-color-danger, #c62828);
  }
  .tok-func, .tok-class {
    color: var(--svc-color-link, #2563eb);
  }
  .tok-cmnt {
    color: var(--svc-color-muted, #6b7280);
    font-style: italic;
  }
  [part='copy'] {
    display: block;
    margin: 0 0 0.25em;
    margin-inline-start: auto;
    padding: 0.15em 0.6em;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: none;
    color: var(--svc-color-muted, #6b7280);
    font: inherit;
    font-size: 0.75em;
    cursor: pointer;
  }
  table {
    display: block;
    overflow-x: auto;
    width: max-content;
    max-width: 100%;
    border-collapse: collapse;
  }
  th, td {
    padding: 0.35em 0.7em;
    border: 1px solid var(--_border);
  }
  th {
    background: var(--_code-bg);
    font-weight: 600;
  }
  blockquote {
    margin-inline-start: 0;
    padding-inline-start: 1em;
    border-inline-start: 3px solid var(--_border);
    color: var(--svc-color-muted, #6b7280);
  }
  hr {
    margin: 0 0 1.25em;
    padding-top: 0.5em;
    border: 0;
    border-bottom: 1px solid var(--_border);
  }
  img {
    max-width: 100%;
    height: auto;
  }
`;
