/**
 * `@svc/agent-sdk/protocol`: what the SDK and the reference service share, with no DOM and no browser code:
 * every wire type, the record helpers, the card-answer codec, the page tools' rules, the phone number rule and
 * the one retry rule. The service imports this entry and nothing else of the SDK; the main entry re-exports it.
 */

export * from './card-answers.js';
export * from './client-tools.js';
export type * from './conversation-types.js';
export * from './currency.js';
export * from './handoff.js';
export type * from './handoff-types.js';
export * from './phone-number.js';
export type * from './record-types.js';
export * from './records.js';
export * from './retry.js';
export type * from './workspace-types.js';
