import { css, unsafeCSS } from 'lit';
import { themeRules } from './tokens.js';

/** Where the launcher's panel covers the whole screen (a phone), and is then a modal dialog. */
export const FULL_SCREEN = '(max-width: 520px)';

export default [
  unsafeCSS(themeRules(':host', ':host([theme=dark])', ':host([theme=auto])')),
  css`
    :host {
      display: block;
      position: relative;
      font-family: var(--svc-font-family);
      font-size: var(--svc-font-size);
      line-height: 1.5;
      color: var(--svc-color-text);
      --svc-chat-width: 400px;
      --svc-chat-height: 640px;
      --svc-chat-radius: var(--svc-radius-l);
      --svc-chat-launcher-size: 56px;
      --svc-chat-offset: 20px;
    }
    :host([mode='inline']) {
      height: 100%;
      min-height: 320px;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: border-box;
    }
    button {
      font: inherit;
      color: inherit;
      cursor: pointer;
    }
    :focus-visible {
      outline: 2px solid var(--svc-color-focus);
      outline-offset: 2px;
    }
    .visually-hidden {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip-path: inset(50%);
      white-space: nowrap;
    }

    /* Launcher */
    [part~='launcher'] {
      position: fixed;
      inset-inline-end: var(--svc-chat-offset);
      bottom: var(--svc-chat-offset);
      z-index: 2147483000;
      width: var(--svc-chat-launcher-size);
      height: var(--svc-chat-launcher-size);
      border: 0;
      border-radius: 50%;
      background: var(--svc-color-primary);
      color: var(--svc-color-on-primary);
      box-shadow: var(--svc-shadow);
      display: grid;
      place-items: center;
      transition: transform 0.15s ease;
    }
    [part~='launcher']:hover {
      transform: scale(1.05);
    }
    [part~='launcher'] svg {
      width: 26px;
      height: 26px;
    }
    [part~='badge'] {
      position: absolute;
      top: -2px;
      inset-inline-end: -2px;
      min-width: 20px;
      height: 20px;
      padding: 0 6px;
      border-radius: 10px;
      background: var(--svc-color-danger);
      color: #fff;
      font-size: 12px;
      font-weight: 600;
      line-height: 20px;
    }

    /* Panel */
    [part~='panel'] {
      display: flex;
      flex-direction: column;
      height: 100%;
      background: var(--svc-color-bg);
      overflow: hidden;
    }
    :host([mode='launcher']) [part~='panel'] {
      position: fixed;
      inset-inline-end: var(--svc-chat-offset);
      bottom: calc(var(--svc-chat-offset) * 1.6 + var(--svc-chat-launcher-size));
      z-index: 2147483000;
      width: min(var(--svc-chat-width), calc(100vw - 2 * var(--svc-chat-offset)));
      height: min(var(--svc-chat-height), calc(100vh - 3 * var(--svc-chat-offset) - var(--svc-chat-launcher-size)));
      border: 1px solid var(--svc-color-border);
      border-radius: var(--svc-chat-radius);
      box-shadow: var(--svc-shadow);
      animation: svc-rise 0.18s ease-out;
    }
    @media ${unsafeCSS(FULL_SCREEN)} {
      :host([mode='launcher']) [part~='panel'] {
        inset: 0;
        width: 100vw;
        height: 100dvh;
        border: 0;
        border-radius: 0;
      }
      :host([mode='launcher'][open]) [part~='launcher'] {
        display: none;
      }
    }
    @keyframes svc-rise {
      from {
        opacity: 0;
        transform: translateY(12px);
      }
    }
    @media (prefers-reduced-motion: reduce) {
      *,
      *::before,
      *::after {
        animation: none !important;
        transition: none !important;
        scroll-behavior: auto !important;
      }
    }

    [part~='header'] {
      display: flex;
      align-items: center;
      gap: 8px;
      padding-block: 12px;
      padding-inline: 16px 12px;
      border-bottom: 1px solid var(--svc-color-border);
    }
    [part~='title'] {
      flex: 1;
      margin: 0;
      font-size: 1em;
      font-weight: 600;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .icon-button {
      display: grid;
      place-items: center;
      width: 32px;
      height: 32px;
      padding: 0;
      border: 0;
      border-radius: var(--svc-radius-s);
      background: transparent;
      color: var(--svc-color-muted);
    }
    .icon-button:hover {
      background: var(--svc-color-surface);
      color: var(--svc-color-text);
    }
    .icon-button svg,
    [part~='send-button'] svg,
    [part~='stop-button'] svg {
      width: 18px;
      height: 18px;
    }
    /* The send arrow points the way the text runs. */
    [dir='rtl'] [part~='send-button'] svg {
      transform: scaleX(-1);
    }

    [part~='notice'] {
      padding: 6px 16px;
      font-size: 0.85em;
      color: var(--svc-color-muted);
      background: var(--svc-color-surface);
      border-bottom: 1px solid var(--svc-color-border);
    }
    [part~='notice'].error {
      color: var(--svc-color-danger);
    }

    /* Messages */
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
      color: var(--svc-color-muted);
    }
    [part~='empty'] {
      margin: auto;
      padding: 24px;
    }
    [part~='message'] {
      display: flex;
      gap: 10px;
      align-items: flex-start;
      max-width: 100%;
    }
    [part~='message-user'] {
      flex-direction: row-reverse;
    }
    [part~='avatar'] {
      flex: none;
      width: 30px;
      height: 30px;
      border-radius: 50%;
      background: var(--svc-color-surface);
      color: var(--svc-color-muted);
      display: grid;
      place-items: center;
      font-size: 13px;
      font-weight: 600;
      object-fit: cover;
    }
    .avatar-space {
      flex: none;
      width: 30px;
    }
    .continued {
      margin-top: -8px;
    }
    .body {
      display: flex;
      flex-direction: column;
      gap: 4px;
      min-width: 0;
      max-width: calc(100% - 40px);
    }
    [part~='message-user'] .body {
      align-items: flex-end;
    }
    [part~='name'] {
      font-size: 0.8em;
      color: var(--svc-color-muted);
    }
    [part~='bubble'] {
      padding: 9px 13px;
      border-radius: var(--svc-radius-m);
      background: var(--svc-color-agent-bubble);
      min-width: 0;
      max-width: 100%;
    }
    [part~='message-user'] [part~='bubble'] {
      background: var(--svc-color-user-bubble);
      color: var(--svc-color-on-user-bubble);
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      border-end-end-radius: var(--svc-radius-s);
    }
    [part~='message-agent'] [part~='bubble'] {
      border-end-start-radius: var(--svc-radius-s);
    }
    [part~='message-system'] {
      justify-content: center;
    }
    .sending [part~='bubble'] {
      opacity: 0.7;
    }
    .meta {
      display: flex;
      gap: 8px;
      align-items: center;
      font-size: 0.8em;
      color: var(--svc-color-muted);
    }
    [part~='message-error'],
    .failed .meta {
      color: var(--svc-color-danger);
    }
    [part~='retry-button'],
    [part~='jump-button'],
    .link-button {
      border: 1px solid var(--svc-color-border);
      border-radius: 999px;
      background: var(--svc-color-bg);
      padding: 1px 10px;
      font-size: 0.95em;
    }
    [part~='jump-button'] {
      position: absolute;
      left: 50%;
      transform: translateX(-50%);
      bottom: 84px;
      padding: 4px 12px;
      box-shadow: var(--svc-shadow);
    }
    .cursor::after {
      content: '▍';
      animation: svc-blink 1s steps(2) infinite;
      color: var(--svc-color-muted);
    }
    @keyframes svc-blink {
      50% {
        opacity: 0;
      }
    }
    [part~='tool-call'] pre {
      margin: 4px 0 0;
      padding: 6px 8px;
      border-radius: var(--svc-radius-s);
      background: var(--svc-color-code-bg);
      overflow: auto;
      font-family: var(--svc-font-mono);
      font-size: 0.95em;
    }
    [part~='image'] {
      display: block;
      max-width: 100%;
      max-height: 320px;
      border-radius: var(--svc-radius-s);
    }

    /* Status and composer */
    [part~='status'] {
      min-height: 1.5em;
      padding: 0 16px;
      font-size: 0.82em;
      color: var(--svc-color-muted);
    }
    [part~='composer'] {
      display: flex;
      align-items: flex-end;
      gap: 8px;
      margin: 0 12px 12px;
      padding-block: 6px;
      padding-inline: 12px 6px;
      border: 1px solid var(--svc-color-border);
      border-radius: var(--svc-radius-m);
      background: var(--svc-color-bg);
    }
    [part~='composer']:focus-within {
      border-color: var(--svc-color-focus);
    }
    [part~='input'] {
      flex: 1;
      min-height: 24px;
      max-height: 160px;
      padding: 5px 0;
      border: 0;
      outline: 0;
      resize: none;
      background: transparent;
      color: inherit;
      font: inherit;
      field-sizing: content;
    }
    [part~='send-button'],
    [part~='stop-button'] {
      flex: none;
      display: grid;
      place-items: center;
      width: 36px;
      height: 36px;
      border: 0;
      border-radius: var(--svc-radius-s);
      background: var(--svc-color-primary);
      color: var(--svc-color-on-primary);
    }
    [part~='send-button']:disabled {
      opacity: 0.4;
      cursor: default;
    }
    [part~='stop-button'] {
      background: var(--svc-color-text);
      color: var(--svc-color-bg);
    }
    [part~='sign-in'] {
      flex: 1;
      overflow: auto;
      padding: 24px 20px;
    }
  `,
];
