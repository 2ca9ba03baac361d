import { css } from 'lit';

/**
 * `.visually-hidden`: out of sight, still read by a screen reader (a field's label, a status line with nothing to
 * show); the panel's and the inbox's.
 */
export default css`
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
