'use client';

/**
 * `@svc/agent-sdk/elements`: importing this registers `<svc-chat>` at once and every other element with the
 * chat's panel, which loads apart (a chunk of its own in a site's bundle): when the page is idle, when a
 * visitor points at or focuses the launcher, or at once for a chat that shows it (docs/elements.md, how
 * loading works). `await loadElements()` registers them now and gives their classes. Registering is done once,
 * however often this is loaded. It gathers the elements (`elements/`), the cards (`cards/`) and what they
 * share (`internal/`), which import neither each other nor this file.
 */
import { loadPanel, loadPanelWhenIdle } from './elements/svc-chat/load-panel.js';

export * from './customize-elements.js';
export type { SvcElementProps } from './element-props.js';
export { type ChatMode, type ChatTheme, SvcChat } from './elements/svc-chat/svc-chat.js';
export type {
  SignedIn,
  SvcAnswerCard,
  SvcCard,
  SvcConnectorSetup,
  SvcInfoCollect,
  SvcMarkdown,
  SvcPaymentGate,
  SvcSmsSignIn,
} from './panel.js';

/**
 * Registers every element now, if the chat's panel has not loaded yet, and resolves with their classes
 * (`SvcMarkdown`, `SvcSmsSignIn`, `SvcPaymentGate`, `SvcInfoCollect`, `SvcConnectorSetup`, …).
 */
export const loadElements = loadPanel;

loadPanelWhenIdle();
