import { css } from 'lit';
import { token } from '../../theme/theme.js';

/**
 * The rows of the conversation: each message with its avatar, name and bubble, and their rich content (cards,
 * files, images, hand-overs, thoughts, reading aloud) and the image viewer.
 */
export default css`
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
    /* Its edge, where the page's colours (or forced colours) make its background the panel's. */
    border: 1px solid ${token('colorBorder')};
    background: ${token('colorSurface')};
    color: ${token('colorMuted')};
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
    color: ${token('colorMuted')};
  }
  [part~='bubble'] {
    padding: 9px 13px;
    border-radius: ${token('radiusM')};
    background: ${token('colorAgentBubble')};
    min-width: 0;
    max-width: 100%;
  }
  [part~='message-user'] [part~='bubble'] {
    background: ${token('colorUserBubble')};
    color: ${token('colorOnUserBubble')};
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    border-end-end-radius: ${token('radiusS')};
  }
  [part~='message-agent'] [part~='bubble'] {
    border-end-start-radius: ${token('radiusS')};
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
    color: ${token('colorMuted')};
  }
  [part~='message-error'],
  .failed .meta {
    color: ${token('colorDanger')};
  }
  [part~='retry-button'] {
    border: 1px solid ${token('colorBorder')};
    border-radius: 999px;
    background: ${token('colorBg')};
    padding: 1px 10px;
    font-size: 0.95em;
  }
  /*
   * The caret of a reply that streams in. It does not blink: a blinking caret is an animation the browser
   * updates every frame, a quarter of a millisecond each, for as long as the reply streams (docs/performance.md,
   * paced streaming); a caret holds still while text is typed anyway.
   */
  .cursor::after {
    content: '▍';
    color: ${token('colorMuted')};
  }
  [part~='tool-call'] pre {
    margin: 4px 0 0;
    padding: 6px 8px;
    border-radius: ${token('radiusS')};
    background: ${token('colorCodeBg')};
    overflow: auto;
    font-family: ${token('fontMono')};
    font-size: 0.95em;
  }
  [part~='image'] {
    display: block;
    max-width: 100%;
    max-height: 320px;
    border-radius: ${token('radiusS')};
  }

  /* One width, whatever the card says: an error that appears under a field does not widen it. */
  [part~='card'] {
    width: 380px;
    max-width: 100%;
  }
  [part~='thinking'],
  [part~='tool-call'],
  [part~='tool-call-row'] {
    font-size: 0.85em;
    color: ${token('colorMuted')};
  }
  [part~='tool-call-row'] {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px 10px;
  }
  summary {
    cursor: pointer;
  }
  .thinking-text {
    margin-top: 4px;
    padding-inline-start: 10px;
    border-inline-start: 2px solid ${token('colorBorder')};
    white-space: pre-wrap;
  }
  [part~='delegation'] {
    margin: 0;
    padding: 4px 10px;
    border-radius: 999px;
    background: ${token('colorSurface')};
    font-size: 0.85em;
    color: ${token('colorMuted')};
    align-self: flex-start;
  }
  [part~='image-button'] {
    display: block;
    padding: 0;
    border: 0;
    background: none;
    cursor: zoom-in;
    border-radius: ${token('radiusS')};
    max-width: 100%;
  }
  [part~='file'] {
    display: grid;
    grid-template-columns: auto 1fr auto;
    align-items: center;
    gap: 4px 10px;
    padding: 8px 10px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusM')};
    background: ${token('colorBg')};
    /* One width, whatever the name: the download buttons of files one under the other line up. */
    width: 320px;
    max-width: 100%;
  }
  [part~='file'] [part~='message-error'] {
    grid-column: 1 / -1;
  }
  [part~='file-icon'] svg,
  [part~='file-chip'] svg {
    width: 20px;
    height: 20px;
    color: ${token('colorMuted')};
  }
  /* A file's name next to its icon, in a reply and among the attachments waiting to be sent. */
  .file-text,
  .attachment-text {
    display: grid;
    min-width: 0;
  }
  [part~='file-name'],
  [part~='attachment-name'] {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  /* An icon button (svc-chat.styles.ts) that widens for "Downloading…". */
  [part~='download-button'] {
    width: auto;
    min-width: 32px;
    padding: 0 6px;
    font-size: 0.85em;
  }
  [part~='read-aloud-button'][data-state='playing'] {
    color: ${token('colorPrimary')};
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 2px;
    font-size: 0.85em;
  }
  .icon-button[aria-pressed='true'] {
    color: ${token('colorPrimary')};
  }
  /*
   * With a pointer that hovers, a reply's actions show while it is hovered or one of them has the focus (the last
   * reply's always); without one (touch) they always show. Hidden ones keep their place, so nothing moves.
   */
  @media (hover: hover) and (pointer: fine) {
    .reply-actions:not(.last):not(:focus-within) {
      opacity: 0;
    }
    [part~='message']:hover .reply-actions {
      opacity: 1;
    }
  }
  .inline-form {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
    align-items: center;
    max-width: 100%;
  }
  .inline-form input,
  .inline-form textarea {
    flex: 1 1 14em;
  }
  [part~='edit-form'] {
    flex-direction: column;
    align-items: stretch;
    width: min(32em, 100%);
  }
  .inline-form button {
    padding: 5px 12px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusS')};
    background: ${token('colorSurface')};
    color: inherit;
    font: inherit;
  }
  .inline-form button[type='submit'],
  [part~='tool-call-allow'] {
    background: ${token('colorPrimary')};
    border-color: ${token('colorPrimary')};
    color: ${token('colorOnPrimary')};
  }
  .parts {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 6px;
  }
  [part~='file-chip'] {
    display: inline-flex;
    align-items: center;
    gap: 6px;
    padding: 6px 10px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusM')};
    color: inherit;
    text-decoration: none;
    font-size: 0.9em;
  }
  [part~='audio'] {
    display: none;
  }
  [part~='lightbox'] {
    padding: 0;
    border: 0;
    background: transparent;
    max-width: 92vw;
    max-height: 92vh;
    overflow: visible;
  }
  [part~='lightbox']::backdrop {
    background: rgb(0 0 0 / 0.88);
  }
  /* As large as the viewport allows, in its own proportions (--ratio, width over height, set once it loads). */
  [part~='lightbox-image'] {
    display: block;
    width: min(92vw, 88vh * var(--ratio, 1));
    height: auto;
    border-radius: ${token('radiusS')};
    background: #fff;
  }
  [part~='lightbox-close'] {
    position: absolute;
    inset-block-start: -14px;
    inset-inline-end: -14px;
    display: grid;
    place-items: center;
    width: 32px;
    height: 32px;
    padding: 0;
    border: 0;
    border-radius: 50%;
    background: ${token('colorBg')};
    color: ${token('colorText')};
    box-shadow: ${token('shadow')};
  }
  [part~='lightbox-close'] svg {
    width: 16px;
    height: 16px;
  }
`;
