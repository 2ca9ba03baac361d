/**
 * What `<svc-chat>` loads after its launcher (`elements/svc-chat/load-panel.ts`): the chat's panel and every other
 * element, which it registers, and what a page may use beside them (the script tag's `window.Svc`): the chat,
 * files and payments clients, the record helpers and the errors, which the panel holds anyway. Its own module,
 * so that a site's bundler and the script-tag build load it apart. Workspace administration and training
 * belong on a server (`import { SvcClient } from '@svc/agent-sdk'`), so they are not here.
 */

export * from './cards/index.js';
export { ChatClient, type ResumeTurnOptions } from './client/chat.js';
export * from './client/errors.js';
export { FilesClient, toPart } from './client/files.js';
export { HttpClient } from './client/http.js';
export { PaymentsClient } from './client/payments.js';
export * from './customize-elements.js';
// Exported, not only imported: a bundler that drops a side-effect-free module's bare imports (Turbopack, in a
// Next.js app) would otherwise leave `<svc-chat-panel>` unregistered.
export { SvcChatPanel } from './elements/svc-chat-panel/svc-chat-panel.js';
export { SvcMarkdown } from './elements/svc-markdown/svc-markdown.js';
export { type SignedIn, SvcSmsSignIn } from './elements/svc-sms-sign-in/svc-sms-sign-in.js';

export {
  connectorSetupMetadata,
  infoCollectSkipMetadata,
  infoCollectSubmitMetadata,
} from './protocol/card-answers.js';
export * from './protocol/records.js';
