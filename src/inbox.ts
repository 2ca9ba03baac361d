'use client';

/**
 * `@svc/agent-sdk/inbox`: importing this registers `<svc-inbox>`, the inbox of a person of the site's staff, and
 * gives its client (`OperatorInbox`). Its own entry, never imported by the visitor's widget: a site's admin loads
 * it, and the script-tag build makes it a file of its own, `svc-chat-inbox.js`, which no file of the visitor's
 * widget loads.
 */
export { OperatorInbox } from './client/operators.js';
export { INBOX_LABELS, type InboxLabels } from './elements/svc-inbox/inbox-labels.js';
export { SvcInbox } from './elements/svc-inbox/svc-inbox.js';
