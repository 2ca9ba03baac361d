/**
 * Every rule by which the services and the turns turn a request down, by name. What a caller reads of each
 * (its status and `detail`, which docs/protocol.md words) is decided in one place on the HTTP side:
 * routes/refusal-answers.ts.
 */
export type RefusalReason =
  // A send and the turns it begins (turns/).
  | 'draining'
  | 'send_key_reused'
  | 'conversation_full'
  | 'reply_running'
  | 'conversation_gone'
  | 'nothing_to_replace'
  | 'card_answer'
  | 'conversation_changed'
  | 'agent_not_found'
  | 'no_agent_named'
  // A person in the conversation: operators, and who holds a conversation (services/handoffs.ts).
  | 'operators_off'
  | 'person_holds'
  | 'already_taken'
  | 'not_waiting'
  | 'not_holder'
  // An answer to a call of a tool the page gave the chat (services/client-tool-calls.ts).
  | 'client_tool_not_pending'
  // Files: uploads, and the agents' workspace of a conversation.
  | 'upload_quota'
  | 'path_required'
  | 'path_escapes'
  | 'file_not_found'
  | 'file_too_large_to_read'
  // A visitor's credentials for an agent's MCP server.
  | 'mcp_server_unknown'
  // Reading a reply aloud.
  | 'speech_unavailable'
  | 'speech_too_slow'
  // Members, their credits and sessions.
  | 'member_not_found'
  | 'member_ref_unknown'
  | 'member_suspended'
  | 'grant_key_reused'
  | 'wallet_insufficient'
  // SMS codes: the send limits (services/sms-codes.ts), the challenge near the cap, a code that does not match.
  | 'sms_phone'
  | 'sms_address'
  | 'sms_prefix'
  | 'sms_workspace'
  | 'sms_challenge'
  | 'sms_code_invalid';

/** What a refusal may say besides its reason: when to ask again, and the limit it met. */
export interface RefusalFacts {
  retryAfterMs?: number;
  /** The bound that was reached (bytes), where the `detail` names it. */
  limit?: number;
}

/**
 * A request a rule of the service turns down, said in the service's terms: thrown by services and turns (inside a
 * transaction it undoes what was written), never an HTTP status; the error handler answers it from
 * routes/refusal-answers.ts.
 */
export class Refusal extends Error {
  override name = 'Refusal';

  constructor(
    readonly reason: RefusalReason,
    readonly facts: RefusalFacts = {},
  ) {
    super(reason);
  }
}
