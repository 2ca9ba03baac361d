import { loadOnce } from '../../internal/load-once.js';
import { whenIdle } from '../../internal/when-idle.js';
import type * as Panel from '../../panel.js';

/** Everything `<svc-chat>` loads after its launcher (`src/panel.ts`). */
export type PanelModule = typeof Panel;

let arrived: (panel: PanelModule) => void;

/** Settles once the panel's module has arrived, whatever asked for it first; asks for nothing itself. */
export const panelArrived = new Promise<PanelModule>((resolve) => {
  arrived = resolve;
});

/**
 * Loads the chat's panel and the other elements: the conversation, its store and client, the cards, the SMS
 * sign-in and the attachments are most of the widget, and the launcher needs none of them (docs/performance.md,
 * start-up). A dynamic import: a chunk of its own in a site's bundle, and `svc-chat-panel.js` in the script-tag
 * files.
 */
export const loadPanel: () => Promise<PanelModule> = loadOnce(
  () => import('../../panel.js'),
  'svc-chat: the chat did not load',
  (panel) => arrived(panel),
);

/**
 * Not a slow network and no data saving asked for; where the browser does not say (Firefox, Safari): fast. A
 * closed launcher loads the panel once it has painted on a fast connection, at the first sign of intent else.
 */
export function fastConnection(): boolean {
  const connection = (navigator as { connection?: { effectiveType?: string; saveData?: boolean } }).connection;
  return !connection?.saveData && (connection?.effectiveType ?? '4g') === '4g';
}

/** Loads the panel when the page is idle; nothing where there is no page (a server rendering one). */
export const loadPanelWhenIdle = (): void => {
  if (typeof document !== 'undefined') whenIdle(() => void loadPanel().catch(() => {}));
};
