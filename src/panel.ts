/**
 * What `<svc-chat>` loads after its launcher (`elements/load-panel.ts`): the chat's panel, and every other
 * element, which it registers. Its own module, so that a site's bundler and the script-tag build load it apart.
 */

export * from './cards/index.js';
export { ChatPanel } from './elements/chat-panel.js';
export { SvcMarkdown } from './elements/svc-markdown.js';
export { type SignedIn, SvcSmsSignIn } from './elements/svc-sms-sign-in.js';
