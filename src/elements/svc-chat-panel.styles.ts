import { css, unsafeCSS } from 'lit';
import { token } from '../internal/theme.js';
import panelFrame from './panel-frame.styles.js';

/**
 * The panel's frame (one string with the launcher's loading state: `panel-frame.styles.ts`), and the
 * conversation inside it: the scrolling list, its notes, the jump to the end, the status line. The element fills
 * the chat (inline); the launcher's panel floats.
 */
export default [
  unsafeCSS(panelFrame),
  css`
  :host {
    display: block;
    height: 100%;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
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
  [part~='jump-button'] {
    border: 1px solid ${token('colorBorder')};
    border-radius: 999px;
    background: ${token('colorBg')};
    font-size: 0.95em;
    position: absolute;
    left: 50%;
    transform: translateX(-50%);
    bottom: 84px;
    padding: 4px 12px;
    box-shadow: ${token('shadow')};
  }
  [part~='status'] {
    min-height: 1.5em;
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
