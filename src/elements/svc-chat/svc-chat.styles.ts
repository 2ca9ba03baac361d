import { hostThemeRules, tokenVar as token } from '../../theme/tokens.js';
import panelFrame, { FULL_SCREEN } from './panel-frame.styles.js';

/** The launcher, and the panel's loading state: its frame, and the space where the conversation will be. */
export default hostThemeRules() +
  panelFrame +
  `
    :host {
      display: block;
      position: relative;
      font-family: ${token('fontFamily')};
      font-size: ${token('fontSize')};
      line-height: 1.5;
      color: ${token('colorText')};
      --svc-chat-width: 400px;
      --svc-chat-height: 640px;
      --svc-chat-radius: ${token('radiusL')};
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
      background: ${token('colorPrimary')};
      color: ${token('colorOnPrimary')};
      box-shadow: ${token('shadow')};
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
      background: ${token('colorDanger')};
      color: #fff;
      font-size: 12px;
      font-weight: 600;
      line-height: 20px;
    }
    @media ${FULL_SCREEN} {
      :host([mode='launcher'][open]) [part~='launcher'] {
        display: none;
      }
    }
    /* The panel while it loads: the composer at the bottom. */
    .loading {
      flex: 1;
    }
  `;
