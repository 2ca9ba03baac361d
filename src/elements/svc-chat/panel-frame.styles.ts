import { tokenVar as token } from '../../theme/tokens.js';

/** Where the launcher's panel covers the whole screen (a phone), and is then a modal dialog. */
export const FULL_SCREEN = '(max-width: 520px)';

/**
 * The panel's frame: its box (floating in `mode="launcher"`), header, notices and composer, and the base rules
 * of a shadow root. Both the launcher's loading state (`svc-chat.styles.ts`) and `<svc-chat-panel>`
 * (`svc-chat-panel.styles.ts`) draw a panel, each in its own shadow root: one string, which the panel's module
 * imports from the launcher's. A plain string, as the launcher's own styles: they come before Lit does, and
 * the build leaves them as written (docs/performance.md, bundle size: 438 B gzip that no build trick saves).
 */
export default `
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
    outline: 2px solid ${token('colorFocus')};
    outline-offset: 2px;
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

  [part~='panel'] {
    display: flex;
    flex-direction: column;
    height: 100%;
    background: ${token('colorBg')};
    overflow: hidden;
  }
  :host([mode='launcher']) [part~='panel'] {
    position: fixed;
    inset-inline-end: var(--svc-chat-offset);
    bottom: calc(var(--svc-chat-offset) * 1.6 + var(--svc-chat-launcher-size));
    z-index: 2147483000;
    width: min(var(--svc-chat-width), calc(100vw - 2 * var(--svc-chat-offset)));
    height: min(var(--svc-chat-height), calc(100vh - 3 * var(--svc-chat-offset) - var(--svc-chat-launcher-size)));
    border: 1px solid ${token('colorBorder')};
    border-radius: var(--svc-chat-radius);
    box-shadow: ${token('shadow')};
    animation: svc-rise 0.18s ease-out;
  }
  @media ${FULL_SCREEN} {
    :host([mode='launcher']) [part~='panel'] {
      inset: 0;
      width: 100vw;
      height: 100dvh;
      border: 0;
      border-radius: 0;
      overscroll-behavior: contain;
    }
  }
  @keyframes svc-rise {
    from {
      opacity: 0;
      transform: translateY(12px);
    }
  }

  [part~='header'] {
    display: flex;
    align-items: center;
    gap: 8px;
    padding-block: 12px;
    padding-inline: 16px 12px;
    border-bottom: 1px solid ${token('colorBorder')};
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
    border-radius: ${token('radiusS')};
    background: transparent;
    color: ${token('colorMuted')};
  }
  /* The header's buttons take the header's colour (\`svc-chat::part(header) { color: … }\`), or their own token. */
  [part~='header'] .icon-button {
    color: var(--svc-chat-header-icon-color, inherit);
  }
  .icon-button svg,
  [part~='send-button'] svg,
  [part~='stop-button'] svg {
    width: 18px;
    height: 18px;
  }
  /* The send arrow points the way the text runs. */
  [part~='send-button']:dir(rtl) svg {
    transform: scaleX(-1);
  }

  [part~='notice'] {
    padding: 6px 16px;
    font-size: 0.85em;
    color: ${token('colorMuted')};
    background: ${token('colorSurface')};
    border-bottom: 1px solid ${token('colorBorder')};
  }

  /* Composer */
  [part~='composer'] {
    display: flex;
    align-items: flex-end;
    gap: 8px;
    margin: 0 12px 12px;
    padding-block: 6px;
    padding-inline: 12px 6px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusM')};
    background: ${token('colorBg')};
  }
  [part~='composer']:focus-within {
    border-color: ${token('colorFocus')};
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
  /* The stop button takes the send button's place while a reply runs (svc-chat-panel.styles.ts: its colors). */
  [part~='send-button'],
  [part~='stop-button'] {
    flex: none;
    display: grid;
    place-items: center;
    width: 36px;
    height: 36px;
    border: 0;
    border-radius: ${token('radiusS')};
    background: ${token('colorPrimary')};
    color: ${token('colorOnPrimary')};
  }
  /* A phone (after the rules it overrides): fingers need 44 px targets, and a field under 16 px makes iOS zoom
     in when it takes the focus. */
  @media ${FULL_SCREEN} {
    .icon-button {
      width: 44px;
      height: 44px;
    }
    [part~='input'] {
      font-size: max(16px, 1em);
    }
  }
`;
