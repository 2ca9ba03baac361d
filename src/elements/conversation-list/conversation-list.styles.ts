import { css } from 'lit';
import { token } from '../../theme/theme.js';

/** The panel's list of conversations (`conversation-list.ts`): rows with a title, a time and a preview. */
export default css`
  [part~='conversations'] {
    flex: 1;
    min-height: 0;
    display: flex;
    flex-direction: column;
  }
  [part~='conversations-heading'] {
    margin: 0;
    padding: 12px 16px 4px;
    font-size: 0.85em;
    font-weight: 600;
    color: ${token('colorMuted')};
  }
  [part~='conversation-list'] {
    flex: 1;
    overflow-y: auto;
    overscroll-behavior: contain;
    padding: 4px 8px 8px;
    display: flex;
    flex-direction: column;
    gap: 2px;
  }
  [part~='conversation'] {
    display: flex;
    align-items: center;
    flex-wrap: wrap;
    gap: 4px;
    padding: 4px;
    border-radius: ${token('radiusS')};
  }
  [part~='conversation'].current {
    background: ${token('colorSurface')};
  }
  [part~='conversation-open'] {
    flex: 1;
    min-width: 0;
    min-height: 44px;
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: 2px;
    padding: 6px 8px;
    border: 0;
    border-radius: ${token('radiusS')};
    background: transparent;
    text-align: start;
  }
  [part~='conversation-open']:hover {
    background: ${token('colorSurface')};
  }
  [part~='conversation-title'],
  [part~='conversation-meta'] {
    max-width: 100%;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    unicode-bidi: plaintext;
  }
  [part~='conversation-title'] {
    font-weight: 600;
  }
  [part~='conversation-meta'] {
    font-size: 0.82em;
    color: ${token('colorMuted')};
  }
  .text-button,
  [part~='confirm'] button,
  [part~='rename-form'] button,
  [part~='more-button'] {
    min-height: 32px;
    padding: 4px 8px;
    border: 1px solid ${token('colorBorder')};
    border-radius: ${token('radiusS')};
    background: ${token('colorBg')};
    font-size: 0.85em;
  }
  [part~='delete-button']:disabled {
    opacity: 0.5;
    cursor: default;
  }
  [part~='confirm'] {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
    width: 100%;
    padding: 4px 8px;
    font-size: 0.85em;
  }
  [part~='confirm-delete'] {
    color: ${token('colorDanger')};
  }
  [part~='rename-form'] {
    display: flex;
    gap: 6px;
    width: 100%;
  }
  [part~='rename-form'] label {
    flex: 1;
    display: flex;
  }
  [part~='rename-input'] {
    flex: 1;
  }
  [part~='more-button'] {
    margin: 4px 16px 12px;
  }
`;
