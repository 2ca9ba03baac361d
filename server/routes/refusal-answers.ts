import { HttpError, type Refusals, retryAfter, unavailable } from '../http/errors.js';
import { formatBytes, LIMITS } from '../services/limits.js';
import type { Refusal, RefusalReason } from '../services/refusal.js';
import { DatabaseUnavailable } from '../store/db.js';

/** What a caller reads of a refusal: its status, and its `detail` (of the limit it met, for those that name one). */
interface Answer {
  status: number;
  detail: string | ((limit: number) => string);
}

/**
 * The one place where a refusal of the services and turns becomes an HTTP answer: each reason's status and
 * `detail`, as docs/protocol.md and the spec word them (tests compare them to the letter).
 */
const ANSWERS: Record<RefusalReason, Answer> = {
  draining: { status: 503, detail: 'this instance is shutting down, try again' },
  send_key_reused: { status: 409, detail: 'Idempotency-Key was already used with a different request' },
  conversation_full: {
    status: 409,
    detail: `this conversation is full (${formatBytes(LIMITS.conversationBytes)}): start a new conversation`,
  },
  reply_running: { status: 409, detail: 'a reply is still running in this conversation' },
  // Deleted between a send finding it and locking it: as if it had not been found.
  conversation_gone: { status: 404, detail: 'conversation not found' },
  nothing_to_replace: { status: 409, detail: 'this conversation has no message to ask again' },
  card_answer: { status: 409, detail: 'the last message answers a card: it cannot be edited' },
  conversation_changed: { status: 409, detail: 'the conversation changed meanwhile: read it again' },
  agent_not_found: { status: 404, detail: 'agent not found' },
  // Worded as the validation of a missing field: a personal key's first send names no agent.
  no_agent_named: { status: 400, detail: 'body/targetAgentIds Required' },
  client_tool_not_pending: { status: 409, detail: 'no call of a page tool with this toolUseId waits for an answer' },

  operators_off: { status: 403, detail: 'this workspace has no operators' },
  person_holds: { status: 409, detail: 'a person is answering in this conversation: the agents do not answer now' },
  already_taken: { status: 409, detail: 'another person has already taken this conversation' },
  not_waiting: { status: 409, detail: 'this conversation is not waiting for a person' },
  not_holder: { status: 409, detail: 'you do not hold this conversation' },

  upload_quota: {
    status: 429,
    detail: (bytesPerHour) => `upload quota reached (${formatBytes(bytesPerHour)} per hour), try again later`,
  },
  path_required: { status: 400, detail: 'path is required' },
  path_escapes: { status: 400, detail: 'path escapes the conversation workspace' },
  file_not_found: { status: 404, detail: 'file not found' },
  file_too_large_to_read: {
    status: 413,
    detail: (limit) => `file too large to read (limit ${formatBytes(limit)}); download it instead`,
  },

  mcp_server_unknown: { status: 404, detail: 'the agent has no MCP server of that name' },

  speech_unavailable: { status: 503, detail: 'speech synthesis is not available on this server' },
  speech_too_slow: { status: 503, detail: 'speech synthesis took too long' },

  member_not_found: { status: 404, detail: 'member not found' },
  member_ref_unknown: { status: 404, detail: 'member not found for sp_user_ref' },
  member_suspended: { status: 403, detail: 'member status is suspended' },
  grant_key_reused: { status: 409, detail: 'idempotency_key was already used with a different request' },
  wallet_insufficient: { status: 402, detail: 'insufficient owner wallet balance' },

  sms_phone: { status: 429, detail: 'too many codes sent to this phone, try again later' },
  sms_address: { status: 429, detail: 'too many codes requested from this address, try again later' },
  sms_prefix: { status: 429, detail: 'too many codes sent to numbers like this one, try again later' },
  sms_workspace: { status: 429, detail: 'this workspace has sent its daily number of SMS codes, try again later' },
  sms_challenge: { status: 428, detail: 'answer the challenge and ask again with its answer in challenge' },
  sms_code_invalid: { status: 401, detail: 'invalid_or_expired_code' },
};

/** The `detail` of a refusal; `limit` is the bound it names, for those that name one. */
export function refusalDetail(reason: RefusalReason, limit = 0): string {
  const { detail } = ANSWERS[reason];
  return typeof detail === 'string' ? detail : detail(limit);
}

/**
 * What any request answers while the database cannot be reached (the store's DatabaseUnavailable: restarting, cut
 * off): another try soon may succeed, and /readyz tells the proxy meanwhile.
 */
const DATABASE_AWAY = { detail: 'the database cannot be reached, try again', retryAfterMs: 2000 };

/** What any route may answer besides its own refusals: documented on every route (openapi.ts). */
export const EVERY_ROUTE_REFUSALS: Refusals = {
  503: {
    [DATABASE_AWAY.detail]:
      'The database cannot be reached (restarting, cut off); `Retry-After` says when to try again.',
  },
};

/**
 * The HTTP answer of a refusal: its status and detail, with `Retry-After` when it says when to ask again; and of
 * the database away: 503 with `Retry-After`.
 */
export function answerOf(error: Refusal | DatabaseUnavailable): HttpError {
  if (error instanceof DatabaseUnavailable) return unavailable(DATABASE_AWAY.detail, DATABASE_AWAY.retryAfterMs);
  const { reason, facts } = error;
  const headers = facts.retryAfterMs === undefined ? {} : retryAfter(facts.retryAfterMs);
  return new HttpError(ANSWERS[reason].status, refusalDetail(reason, facts.limit), headers);
}

/**
 * Refusals as a route documents them (its OpenAPI `refusals`): each reason with when it comes there, by its
 * status and detail; `limit` is the bound the details name, for those that name one.
 */
export function documentedRefusals(when: Partial<Record<RefusalReason, string>>, limit?: number): Refusals {
  const refusals: Refusals = {};
  for (const [reason, text] of Object.entries(when) as [RefusalReason, string][]) {
    const { status } = ANSWERS[reason];
    refusals[status] = { ...refusals[status], [refusalDetail(reason, limit)]: text };
  }
  return refusals;
}
