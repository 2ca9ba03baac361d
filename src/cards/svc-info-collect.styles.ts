import { css } from 'lit';
import { token } from '../theme/theme.js';
import cardStyles from './card.styles.js';

export default [
  ...cardStyles,
  css`
    [part~='summary'] {
      display: grid;
      grid-template-columns: auto 1fr;
      gap: 4px 12px;
      margin: 0;
      font-size: 0.9em;
    }
    [part~='summary'] dt {
      color: ${token('colorMuted')};
    }
    [part~='summary'] dd {
      margin: 0;
      overflow-wrap: anywhere;
      white-space: pre-wrap;
    }
    :host([state='submitted']) [part~='status'] {
      color: ${token('colorSuccess')};
    }
    :host([state='skipped']) [part~='status'] {
      color: ${token('colorMuted')};
    }
  `,
];
