'use client';

/**
 * `@svc/agent-sdk/inbox`: importing this registers `<svc-inbox>`, the inbox of a person of the site's staff, and
 * gives its client (`OperatorInbox`). Its own entry, never imported by the visitor's widget: a site's admin loads
 * it, and the script tag's panel loads it as a chunk of its own (`loadInbox()`, src/panel.ts).
 */
export { OperatorInbox } from './client/operators.js';
export { INBOX_LABELS, type InboxLabels } from './elements/svc-inbox/inbox-labels.js';
export { SvcInbox } from './elements/svc-inbox/svc-inbox.js';
