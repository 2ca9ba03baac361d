/**
 * `dist/svc-chat-panel.js`, what the script-tag files load after the launcher: Lit, the chat's panel and the
 * other elements (which it registers), and what `window.Svc` offers a page besides the widget: the chat, files
 * and payments clients, the record helpers, the errors, the labels and tokens. Workspace administration and
 * training belong on a server (`import { SvcClient } from '@svc/agent-sdk'`), so they are not in these files.
 */

export { ChatClient, type ResumeTurnOptions } from '../client/chat.js';
export * from '../client/errors.js';
export { FilesClient, toPart } from '../client/files.js';
export { HttpClient } from '../client/http.js';
export { PaymentsClient } from '../client/payments.js';
export * from '../elements-shared.js';
export * from '../panel.js';
export {
  connectorSetupMetadata,
  infoCollectSkipMetadata,
  infoCollectSubmitMetadata,
} from '../protocol/card-answers.js';
export * from '../protocol/records.js';
