import { css } from 'lit';
import { token } from '../theme/theme.js';
import cardStyles from './card.styles.js';

export default [
  ...cardStyles,
  css`
    .secret {
      display: flex;
      gap: 6px;
    }
    .secret [part~='input'] {
      flex: 1;
      min-width: 0;
    }
    [part~='toggle'] {
      display: grid;
      place-items: center;
      padding: 0 10px;
      color: ${token('colorMuted')};
      font-size: 0.85em;
    }
    [part~='status'] {
      color: ${token('colorSuccess')};
    }
  `,
];
