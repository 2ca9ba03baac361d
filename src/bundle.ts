/**
 * The script-tag build (`dist/svc-chat.js`, `dist/svc-chat.esm.js`): registers every element and offers
 * the client and the record helpers, as `window.Svc` in the classic script.
 */
export * from './elements/index.js';
export * from './index.js';
