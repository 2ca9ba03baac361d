import { css, unsafeCSS } from 'lit';
import visuallyHidden from '../../internal/visually-hidden.styles.js';
import { token } from '../../theme/theme.js';
import panelFrame, { FULL_SCREEN } from '../svc-chat/panel-frame.styles.js';

/**
 * The panel's frame (one string with the launcher's loading state: `panel-frame.styles.ts`), and the
 * conversation inside it: the scrolling list, its notes, the jump to the end, the status line. The element fills
 * the chat (inline); the launcher's panel floats.
 */
export default [
  unsafeCSS(panelFrame),
  visuallyHidden,
  css`
  :host {
    display: block;
    height: 100%;
  }
  [part~='messages'] {
    flex: 1;
    overflow-y: auto;
    overscroll-behavior: contain;
    padding: 16px;
    display: flex;
    flex-direction: column;
    gap: 14px;
  }
  .history-note,
  [part~='empty'] {
    text-align: center;
    font-size: 0.85em;
    color: ${token('colorMuted')};
  }
  [part~='empty'] {
    margin: auto;
    padding: 24px;
  }
  .prompts {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 8px;
    margin-top: 14px;
  }
  /* Under the reply they answer, from its start. */
  [part~='suggestions'] {
    justify-content: flex-start;
    margin-top: 10px;
  }
  .prompts button {
    padding: 7px 14px;
    border: 1px solid ${token('colorBorder')};
    border-radius: 999px;
    background: ${token('colorBg')};
    color: ${token('colorText')};
    font: inherit;
    font-size: 1.05em;
    cursor: pointer;
  }
  /* A field of the panel's small forms: a conversation's new title, a feedback's reason, an edited message. */
  .text-field {
    min-width: 0;
    padding: 6px 8px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusS')};
    background: ${token('colorBg')};
    color: inherit;
    font: inherit;
  }
  /* Under the list, not over it: it never covers a message or its actions (the list gives up its height). */
  /* A 32 px target, in a rule of no weight: a phone's 44 px (phoneStyles) comes after it and wins. */
  :where([part~='jump-button']) {
    min-width: 44px;
    min-height: 32px;
  }
  [part~='jump-button'] {
    flex: none;
    align-self: center;
    margin-top: 6px;
    border: 1px solid ${token('colorBorder')};
    border-radius: 999px;
    background: ${token('colorBg')};
    font-size: 0.95em;
    padding: 4px 12px;
    box-shadow: ${token('shadow')};
  }
  /* Back to the conversation before: its arrow points back the way the text runs. */
  [part~='previous-button']:dir(rtl) svg {
    transform: scaleX(-1);
  }
  [part~='status'],
  [part~='outbox-note'] {
    min-height: 1.5em;
    margin: 0;
    padding: 0 16px;
    font-size: 0.82em;
    color: ${token('colorMuted')};
  }
  [part~='sign-in'] {
    flex: 1;
    overflow: auto;
    padding: 24px 20px;
  }
  .icon-button:hover {
    background: ${token('colorSurface')};
    color: ${token('colorText')};
  }
  [part~='notice'].error {
    color: ${token('colorDanger')};
  }
  [part~='send-button']:disabled {
    opacity: 0.4;
    cursor: default;
  }
  [part~='stop-button'] {
    background: ${token('colorText')};
    color: ${token('colorBg')};
  }
`,
];

/**
 * A phone: every button is a 44 px target for a finger, and no field's text is under 16 px (iOS zooms in on
 * it), the cards' and the code blocks' too (reached through their parts). Last among the panel's styles: it
 * overrides the sizes of the rules before it.
 */
export const phoneStyles = css`
  @media ${unsafeCSS(FULL_SCREEN)} {
    button,
    [part~='card']::part(button),
    [part~='card']::part(secondary-button),
    [part~='card']::part(toggle),
    svc-markdown::part(copy) {
      min-width: 44px;
      min-height: 44px;
    }
    .text-field,
    [part~='card']::part(input) {
      font-size: max(16px, 1em);
    }
  }
`;
