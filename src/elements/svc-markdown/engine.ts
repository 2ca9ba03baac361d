import { loadOnce } from '../../internal/load-once.js';
import type { StreamMarkdown, StreamMarkdownOptions } from './stream-markdown.js';

/** What `<svc-markdown>` needs of the engine module (`stream-markdown.ts` with marked and DOMPurify). */
export interface MarkdownEngine {
  StreamMarkdown: new (target: HTMLElement, options: StreamMarkdownOptions) => StreamMarkdown;
  warmUp(): void;
}

/** The engine once it has arrived: an element created after that renders at once. */
export let markdownEngine: MarkdownEngine | undefined;

/**
 * Loads the markdown engine: marked, DOMPurify and the streaming renderer are most of the widget's bytes and
 * the launcher needs none of them, so they come in a module of their own (docs/performance.md, start-up).
 */
export const loadMarkdownEngine: () => Promise<MarkdownEngine> = loadOnce(
  // A dynamic import: a chunk of its own in a site's bundle, `svc-chat-markdown.js` in the script-tag files.
  () => import('./stream-markdown.js'),
  'svc-markdown: the markdown renderer did not load, so text shows as plain text',
  (engine) => {
    markdownEngine = engine;
    engine.warmUp();
  },
);
