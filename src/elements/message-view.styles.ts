import { css } from 'lit';

/** Rich content of messages: cards, files, images, hand-overs, thoughts, reading aloud and the image viewer. */
export default css`
  [part~='card'] {
    width: 100%;
  }
  [part~='thinking'],
  [part~='tool-call'] {
    font-size: 0.85em;
    color: var(--svc-color-muted);
  }
  summary {
    cursor: pointer;
  }
  .thinking-text {
    margin-top: 4px;
    padding-inline-start: 10px;
    border-inline-start: 2px solid var(--svc-color-border);
    white-space: pre-wrap;
  }
  [part~='delegation'] {
    margin: 0;
    padding: 4px 10px;
    border-radius: 999px;
    background: var(--svc-color-surface);
    font-size: 0.85em;
    color: var(--svc-color-muted);
    align-self: flex-start;
  }
  [part~='image-button'] {
    display: block;
    padding: 0;
    border: 0;
    background: none;
    cursor: zoom-in;
    border-radius: var(--svc-radius-s);
    max-width: 100%;
  }
  [part~='file'] {
    display: grid;
    grid-template-columns: auto 1fr auto;
    align-items: center;
    gap: 4px 10px;
    padding: 8px 10px;
    border: 1px solid var(--svc-color-border);
    border-radius: var(--svc-radius-m);
    background: var(--svc-color-bg);
    max-width: 320px;
  }
  [part~='file'] [part~='message-error'] {
    grid-column: 1 / -1;
  }
  [part~='file-icon'] svg,
  [part~='file-chip'] svg {
    width: 20px;
    height: 20px;
    color: var(--svc-color-muted);
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
    color: var(--svc-color-primary);
  }
  .actions {
    display: flex;
    align-items: center;
    gap: 6px;
    font-size: 0.85em;
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
    border: 1px solid var(--svc-color-border);
    border-radius: var(--svc-radius-m);
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
    background: rgb(0 0 0 / 0.75);
  }
  [part~='lightbox-image'] {
    display: block;
    max-width: 92vw;
    max-height: 88vh;
    border-radius: var(--svc-radius-s);
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
    background: var(--svc-color-bg);
    color: var(--svc-color-text);
    box-shadow: var(--svc-shadow);
  }
  [part~='lightbox-close'] svg {
    width: 16px;
    height: 16px;
  }
`;
