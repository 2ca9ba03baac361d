/**
 * What the script-tag build loads after the launcher (`dist/svc-chat-panel.js`; vite.config.ts puts it in place
 * of `panel.ts`): the panel and the other elements, and what `window.Svc` offers a page besides the widget: the
 * chat, files and payments clients, the record helpers and the errors. Workspace administration and training
 * belong on a server (`import { SvcClient } from '@svc/agent-sdk'`), so they are not in these files.
 */

export {
  connectorSetupMetadata,
  infoCollectSkipMetadata,
  infoCollectSubmitMetadata,
} from './client/card-answers.js';
export { ChatClient, type ResumeTurnOptions } from './client/chat.js';
export * from './client/errors.js';
export { FilesClient, toPart } from './client/files.js';
export { HttpClient } from './client/http.js';
export { PaymentsClient } from './client/payments.js';
export * from './client/records.js';
export * from './elements.js';
export * from './panel.js';
