import { css } from 'lit';
import { token } from '../theme/theme.js';
import cardStyles from './card.styles.js';

export default [
  ...cardStyles,
  css`
    [part~='amount'] {
      margin: 0;
      font-size: 1.6em;
      font-weight: 700;
      font-variant-numeric: tabular-nums;
    }
    [part~='status'] {
      display: flex;
      align-items: center;
      gap: 6px;
    }
    :host([state='paid']) [part~='status'] {
      color: ${token('colorSuccess')};
    }
    :host([state='expired']) [part~='status'],
    :host([state='canceled']) [part~='status'] {
      color: ${token('colorMuted')};
    }
    [part~='countdown'] {
      margin: 0;
      font-size: 0.85em;
      color: ${token('colorMuted')};
      font-variant-numeric: tabular-nums;
    }
  `,
];
