import { css } from 'lit';
import { themeStyles, token } from '../theme/theme.js';

/** Styles every card shares: the frame, headings, fields, buttons and messages. */
export default [
  themeStyles,
  css`
    :host {
      display: block;
      max-width: 380px;
      font-family: ${token('fontFamily')};
      font-size: ${token('fontSize')};
      line-height: 1.45;
      color: ${token('colorText')};
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: border-box;
    }
    [part~='base'] {
      display: grid;
      gap: 10px;
      padding: 14px 16px;
      border: 1px solid ${token('colorBorder')};
      border-radius: ${token('radiusM')};
      background: ${token('colorBg')};
    }
    [part~='title'] {
      margin: 0;
      font-size: 1em;
      font-weight: 600;
    }
    /* The agent's words may run the other way than the card's: each block takes the direction of its text. */
    [part~='title'],
    [part~='description'],
    dt,
    dd {
      unicode-bidi: plaintext;
    }
    [part~='description'] {
      margin: 0;
      font-size: 0.9em;
      color: ${token('colorMuted')};
    }
    form {
      display: grid;
      gap: 10px;
      margin: 0;
    }
    [part~='field'] {
      display: grid;
      gap: 4px;
    }
    [part~='label'] {
      font-size: 0.88em;
      font-weight: 600;
    }
    .optional {
      font-weight: 400;
      color: ${token('colorMuted')};
    }
    /* Fields and buttons share one frame; every button but the primary one (part button) is outlined. */
    button,
    [part~='input'] {
      font: inherit;
      color: inherit;
      border: 1px solid ${token('colorBorder')};
      border-radius: ${token('radiusS')};
    }
    [part~='input'] {
      width: 100%;
      padding: 8px 10px;
      background: ${token('colorBg')};
    }
    textarea[part~='input'] {
      min-height: 4.5em;
      resize: vertical;
    }
    [part~='input'][aria-invalid='true'] {
      border-color: ${token('colorDanger')};
    }
    [part~='field-error'],
    [part~='error'] {
      margin: 0;
      font-size: 0.85em;
      color: ${token('colorDanger')};
    }
    [part~='actions'] {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
    }
    button {
      padding: 8px 14px;
      background: transparent;
      cursor: pointer;
    }
    [part~='button'] {
      border: 0;
      background: ${token('colorPrimary')};
      color: ${token('colorOnPrimary')};
      font-weight: 600;
    }
    button:disabled {
      opacity: 0.55;
      cursor: default;
    }
    [part~='status'] {
      margin: 0;
      font-size: 0.9em;
      font-weight: 600;
    }
    :focus-visible {
      outline: 2px solid ${token('colorFocus')};
      outline-offset: 2px;
    }
  `,
];
