import { RESERVED_TOOL_NAMES } from '@svc/agent-sdk/protocol';
import { randomId } from '../store/ids.js';
import type { Runtime } from './types.js';

/** What the agent says when nobody of the staff took the conversation in time (docs/protocol.md). */
export const NOBODY_THERE =
  'Nobody from the team could join this conversation just now. Leave your contact details and they will get back to you.';

/** The contact card it shows: a `collect_info` card, whose answer the operators' queue shows. */
export const CONTACT_CARD = {
  title: 'Your contact details',
  submitLabel: 'Send',
  fields: [
    { name: 'name', label: 'Name', type: 'text', required: true },
    { name: 'email', label: 'Email', type: 'email', required: true },
    { name: 'phone', label: 'Phone', type: 'phone' },
    { name: 'message', label: 'What can we help with?', type: 'textarea' },
  ],
} as const;

/**
 * The turn after a handoff nobody took (`TurnInput.unanswered`): the agent tells the visitor and offers the contact
 * card, in the same words whatever its runtime, so a model cannot forget the card. The card is the agent's
 * `collect_info` call: its answer reaches the agent as any card's does (the model reads it as its call's result).
 */
export const nobodyThereRuntime: Runtime = {
  async run(_input, io) {
    const stream = io.streamText();
    stream.write(NOBODY_THERE);
    stream.end({
      after: [
        { type: 'tool_use', id: randomId('toolu', 12), name: RESERVED_TOOL_NAMES.infoCollect, input: CONTACT_CARD },
      ],
    });
  },
};
