import { css } from 'lit';
import visuallyHidden from '../../internal/visually-hidden.styles.js';
import { themeStyles, token } from '../../theme/theme.js';

/** The inbox: the queue beside the conversation opened; the chat's theme tokens (`--svc-*`). */
export default [
  themeStyles,
  css`
    :host {
      display: block;
      height: 100%;
      color: ${token('colorText')};
      background: ${token('colorBg')};
      font-family: ${token('fontFamily')};
    }
    .columns {
      display: flex;
      height: 100%;
      min-height: 0;
    }
    [part~='queue'] {
      flex: 0 0 var(--svc-inbox-queue-width, 280px);
      overflow-y: auto;
      padding: 8px;
      border-inline-end: 1px solid ${token('colorBorder')};
    }
    [part~='queue-heading'] {
      font-size: 0.9em;
      margin: 12px 4px 6px;
    }
    ul,
    ol {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    [part~='queue-entry'] {
      display: flex;
      flex-direction: column;
      gap: 2px;
      width: 100%;
      margin-bottom: 4px;
      padding: 8px;
      border: 1px solid ${token('colorBorder')};
      border-radius: ${token('radiusS')};
      background: ${token('colorBg')};
      color: inherit;
      font: inherit;
      text-align: start;
      cursor: pointer;
    }
    [part~='queue-entry'][aria-current='true'] {
      background: ${token('colorSurface')};
    }
    .preview {
      color: ${token('colorMuted')};
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    [part~='conversation'] {
      flex: 1;
      display: flex;
      flex-direction: column;
      min-width: 0;
    }
    [part~='conversation'].empty {
      align-items: center;
      justify-content: center;
      color: ${token('colorMuted')};
    }
    [part~='conversation-header'] {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 8px;
      padding: 12px 16px;
      border-bottom: 1px solid ${token('colorBorder')};
    }
    [part~='conversation-header'] h2 {
      flex: 1;
      margin: 0;
      font-size: 1em;
    }
    button {
      padding: 6px 12px;
      border: 1px solid ${token('colorBorder')};
      border-radius: ${token('radiusS')};
      background: ${token('colorBg')};
      color: inherit;
      font: inherit;
      cursor: pointer;
    }
    [part~='take-button'],
    [part~='send-button'] {
      background: ${token('colorPrimary')};
      border-color: ${token('colorPrimary')};
      color: ${token('colorOnPrimary')};
    }
    [part~='messages'] {
      flex: 1;
      overflow-y: auto;
      padding: 16px;
      display: flex;
      flex-direction: column;
      gap: 10px;
    }
    [part~='message'] {
      display: flex;
      flex-direction: column;
      max-width: 80%;
    }
    [part~='message'].visitor {
      align-self: flex-end;
      text-align: end;
    }
    .name {
      font-size: 0.8em;
      color: ${token('colorMuted')};
    }
    .text {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part~='composer'] {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
      padding: 12px 16px;
      border-top: 1px solid ${token('colorBorder')};
    }
    [part~='composer'] label:first-child {
      flex: 1 1 60%;
    }
    [part~='input'] {
      box-sizing: border-box;
      width: 100%;
      font: inherit;
      padding: 6px 8px;
      border: 1px solid ${token('colorBorder')};
      border-radius: ${token('radiusS')};
      background: ${token('colorBg')};
      color: inherit;
    }
    [part~='error'] {
      margin: 0;
      padding: 8px 16px;
      color: ${token('colorDanger')};
    }
  `,
  visuallyHidden,
];
