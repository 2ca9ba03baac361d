import { css } from 'lit';
import { token } from '../../theme/theme.js';

/** The composer's attachments: the attach button, the files waiting to be sent and the drop zone. */
export default css`
  /* Both are icon buttons (svc-chat.styles.ts) of their own size. */
  [part~='attach-button'] {
    flex: none;
    width: 36px;
    height: 36px;
  }
  [part~='attachments'] {
    margin: 0 12px 6px;
  }
  [part~='attachment-list'] {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  [part~='attachment'] {
    display: flex;
    align-items: center;
    gap: 8px;
    max-width: 240px;
    padding-block: 4px;
    padding-inline: 6px 4px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusS')};
    background: ${token('colorBg')};
    font-size: 0.82em;
  }
  [part~='attachment'].failed {
    border-color: ${token('colorDanger')};
  }
  [part~='attachment-preview'] {
    width: 36px;
    height: 36px;
    object-fit: cover;
    border-radius: 4px;
  }
  [part~='attachment-icon'] svg {
    width: 22px;
    height: 22px;
    color: ${token('colorMuted')};
  }
  .attachment-meta {
    display: flex;
    align-items: center;
    gap: 6px;
    color: ${token('colorMuted')};
  }
  [part~='upload-progress'] {
    width: 48px;
    height: 6px;
  }
  [part~='attachment-error'] {
    margin: 0;
    color: ${token('colorDanger')};
    font-size: 0.85em;
  }
  [part~='remove-attachment'] {
    flex: none;
    width: 24px;
    height: 24px;
    border-radius: 50%;
  }
  [part~='remove-attachment'] svg {
    width: 14px;
    height: 14px;
  }
  [part~='drop-zone'] {
    position: absolute;
    inset: 8px;
    z-index: 1;
    display: grid;
    place-items: center;
    border: 2px dashed ${token('colorPrimary')};
    border-radius: ${token('radiusM')};
    background: color-mix(in srgb, ${token('colorBg')} 88%, transparent);
    color: ${token('colorPrimary')};
    font-weight: 600;
    pointer-events: none;
  }
`;
