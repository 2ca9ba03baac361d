import type * as Panel from '../panel.js';

/** Everything `<svc-chat>` loads after its launcher (`src/panel.ts`). */
export type PanelModule = typeof Panel;

let loading: Promise<PanelModule> | undefined;
let arrived: (panel: PanelModule) => void;

/** Settles once the panel's module has arrived, whatever asked for it first; asks for nothing itself. */
export const panelArrived = new Promise<PanelModule>((resolve) => {
  arrived = resolve;
});

/**
 * Loads the chat's panel and the other elements: the conversation, its store and client, the cards, the SMS
 * sign-in and the attachments are most of the widget, and the launcher needs none of them (docs/performance.md,
 * start-up). A dynamic import: a site's bundler makes it a chunk of its own, and the script-tag build a file
 * next to `svc-chat.esm.js`. Every caller shares one load; after a failure the next caller tries again.
 */
export function loadPanel(): Promise<PanelModule> {
  loading ??= import('../panel.js').then(
    (panel) => {
      arrived(panel);
      return panel;
    },
    (error: unknown) => {
      console.error('svc-chat: the chat did not load', error);
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Loads the panel when the page is idle (a `setTimeout` where `requestIdleCallback` is missing: Safari). */
export function loadPanelWhenIdle(): void {
  const load = () => void loadPanel().catch(() => {});
  if (typeof requestIdleCallback === 'function') requestIdleCallback(load);
  else setTimeout(load, 1);
}
