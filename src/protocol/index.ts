/**
 * `@svc/agent-sdk/protocol`: what the SDK and the reference service share, with no DOM and no browser code:
 * every wire type, the record helpers, the card-answer codec, the page tools' rules, the phone number rule and
 * the one retry rule. The service imports this entry and nothing else of the SDK; the main entry re-exports it.
 */

export * from './card-answers.js';
export * from './client-tools.js';
export * from './handoff.js';
export * from './phone-number.js';
export * from './records.js';
export * from './retry.js';
export type * from './types.js';
