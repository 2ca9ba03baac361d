/** The engine as a dynamic import, which a site's bundler turns into a chunk of its own. */
export const importEngine = () => import('./stream-markdown.js');
