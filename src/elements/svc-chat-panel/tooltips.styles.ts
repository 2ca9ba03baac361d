import { css } from 'lit';
import { token } from '../../theme/theme.js';

/**
 * The tooltip of every icon button in the panel: its accessible name (`aria-label`, so the two never differ),
 * shown on hover and on keyboard focus. Drawn by CSS rather than `title`, which shows on hover only, late, and
 * not at all to a keyboard. Above the button, from its start (inside the row, which a virtual list's row clips);
 * in the header and the image viewer, below it, from its end (inside the panel, which clips).
 */
export default css`
  :is(.icon-button, [part~='send-button'], [part~='stop-button'], [part~='jump-button'], [part~='lightbox-close']) {
    position: relative;
  }
  :is(.icon-button, [part~='send-button'], [part~='stop-button'], [part~='jump-button'], [part~='lightbox-close'])::after {
    content: attr(aria-label);
    position: absolute;
    bottom: calc(100% + 4px);
    inset-inline-start: 0;
    z-index: 3;
    padding: 3px 8px;
    border-radius: ${token('radiusS')};
    background: ${token('colorText')};
    color: ${token('colorBg')};
    font-size: 12px;
    font-weight: normal;
    line-height: 1.4;
    white-space: nowrap;
    pointer-events: none;
    visibility: hidden;
  }
  :is([part~='header'] .icon-button, [part~='lightbox-close'])::after {
    top: calc(100% + 4px);
    bottom: auto;
    inset-inline: auto 0;
  }
  :is([part~='send-button'], [part~='stop-button'])::after {
    inset-inline: auto 0;
  }
  :focus-visible::after {
    visibility: visible;
  }
  @media (hover: hover) {
    :hover::after {
      visibility: visible;
    }
  }
`;
