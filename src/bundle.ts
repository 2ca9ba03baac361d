/**
 * The script-tag build (`dist/svc-chat.js`, `dist/svc-chat.esm.js`): registers every element and offers,
 * as `window.Svc` in the classic script, what a page needs next to the widget: the chat, files and payments
 * clients, the record helpers and the errors. Workspace administration and training belong on a server
 * (`import { SvcClient } from '@svc/agent-sdk'`), so they are not in this file.
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
