/**
 * The script-tag build's stand-in for `import-engine.ts` (vite.config.ts swaps it in): the engine is the file
 * `svc-chat-markdown.js` next to `svc-chat.js` or `svc-chat.esm.js`.
 */
import { importBeside } from '../../internal/script-base.js';

export const importEngine = () => importBeside('svc-chat-markdown.js');
