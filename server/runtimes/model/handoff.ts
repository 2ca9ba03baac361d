import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import { HANDOFF_LIMITS } from '@svc/agent-sdk/protocol';
import { z } from 'zod/v4';

/*
 * A person in the conversation, as the model meets it (docs/protocol.md): the reserved function `handoff`, offered
 * where the agent's workspace has operators, and what the model reads of the records of a handoff.
 */

/** The arguments of `handoff`. */
export const handoffInput = z.object({
  reason: z
    .string()
    .max(HANDOFF_LIMITS.reason)
    .optional()
    .describe('why, in a few words, for the person who takes over'),
});

export const HANDOFF_DESCRIPTION =
  "Asks a person from the site's team to take the conversation over, when the visitor asks for a person or you " +
  'cannot help. Tell the visitor first, in your answer; the call ends your reply, and you answer no more until the ' +
  'person gives the conversation back or nobody comes.';

/** The call's result, in its turn and in the history after it. */
export const HANDOFF_ASKED = 'A person from the team was asked for; the visitor waits for them.';

/**
 * What the model reads of a record of a handoff (a note, or what a person wrote), as the visitor's side of the
 * conversation; undefined for any other record.
 */
export function handoffNote(record: ChatStreamRecord): string | undefined {
  const raw = record.raw;
  switch (raw.type) {
    case 'handoff_requested':
      return raw.by === 'visitor'
        ? `(The visitor asked for a person from the team${raw.reason ? `: ${raw.reason}` : ''}.)`
        : undefined;
    case 'operator_joined':
      return `(${raw.operator.name}, a person from the team, took the conversation over; you did not answer meanwhile.)`;
    case 'operator_message':
      return `${raw.operator.name} (a person from the team) wrote:\n${raw.message.content.map((b) => b.text).join('')}`;
    case 'operator_left':
      return raw.action === 'closed'
        ? `(${raw.operator.name} closed the conversation; you answer again.)`
        : `(${raw.operator.name} gave the conversation back to you; you answer again.)`;
    case 'handoff_unanswered':
      return `(Nobody from the team took the conversation within ${raw.waitedSeconds} seconds.)`;
    default:
      return undefined;
  }
}
