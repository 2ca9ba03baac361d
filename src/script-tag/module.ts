/**
 * `dist/svc-chat.esm.js`, the launcher of the script-tag files as an ES module (`<script type="module">`; the classic
 * `svc-chat.js` is the same launcher as a classic script). It registers `<svc-chat>`, whose launcher is all a page
 * loads before it paints (no Lit), and loads the rest of the widget (`svc-chat-panel.js`, from next to this file)
 * when the page is idle, when a visitor points at or focuses the launcher, or at once for a chat that needs it
 * (inline, or a conversation to resume).
 */
import { loadPanel, loadPanelWhenIdle, panelArrived } from '../elements/svc-chat/load-panel.js';

export { SvcChat } from '../elements/svc-chat/svc-chat.js';

/**
 * Loads the rest of the widget now, if it has not come yet, and resolves with it: the chat, files and
 * payments clients, the record helpers, the errors and every other element's class.
 */
export const load = loadPanel;
/** Settles once the rest of the widget has arrived, without asking for it. */
export const loaded = panelArrived;

// The other elements register with the panel: on a page without a chat (a card alone) they come when idle.
loadPanelWhenIdle();
