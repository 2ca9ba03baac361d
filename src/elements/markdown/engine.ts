import { importEngine } from './import-engine.js';
import type { StreamMarkdown, StreamMarkdownOptions } from './stream-markdown.js';

/** What `<svc-markdown>` needs of the engine module (`stream-markdown.ts` with marked and DOMPurify). */
export interface MarkdownEngine {
  StreamMarkdown: new (target: HTMLElement, options: StreamMarkdownOptions) => StreamMarkdown;
}

/** The engine once it has arrived: an element created after that renders at once. */
export let markdownEngine: MarkdownEngine | undefined;
let loading: Promise<MarkdownEngine> | undefined;

/**
 * Loads the markdown engine: marked, DOMPurify and the streaming renderer are most of the widget's bytes and
 * the launcher needs none of them, so they come in a module of their own (docs/performance.md, start-up).
 * Every caller shares one load; after a failure (the file was not deployed next to the script, the network
 * dropped) the next caller tries again.
 */
export function loadMarkdownEngine(): Promise<MarkdownEngine> {
  loading ??= importEngine().then(
    (engine) => {
      markdownEngine = engine;
      return engine;
    },
    (error: unknown) => {
      console.error('svc-markdown: the markdown renderer did not load, so text shows as plain text', error);
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
