import type * as Wire from '@svc/agent-sdk/protocol';
import { HANDOFF_LIMITS } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { described } from '../http/openapi.js';
import { QUEUE_LIMITS } from '../services/operator-queue.js';
import { operatorIdentity, RECORD_EXAMPLE, recordId, timestamp } from './record-schemas.js';

/*
 * What the routes of a person in the conversation share (docs/protocol.md): who holds a conversation, the queue an
 * operator reads, and their examples. The visitor's request (visitor-handoff.ts), the operators' routes
 * (operators.ts) and history (conversation-schemas.ts) answer with them.
 */

export const OPERATOR: Wire.OperatorIdentity = {
  id: 'op_Ht5Yq2Lw8Zc1Vb4Nm7Kx3A',
  name: 'Alex',
  avatarUrl: 'https://example.com/alex.png',
};

const handoffFields = {
  state: z
    .enum(['agent', 'waiting', 'human'])
    .describe('`agent`: its agents answer; `waiting`: a person is asked for; `human`: a person holds it.'),
  operator: operatorIdentity.optional().describe('The person, when `human`.'),
  at: recordId('The record that said so, or null: the conversation was never handed to a person.').nullable(),
};

export const handoffStatus: z.ZodType<Wire.HandoffStatus> = described(
  'Who holds the conversation now, and the record that said so.',
  z.object(handoffFields),
  { state: 'human', operator: OPERATOR, at: 'e000000000000043' },
);

export const handoffResult: z.ZodType<Wire.HandoffResult> = described(
  'Who holds the conversation now, and the record that said so.',
  z.object({ conversationId: z.string(), ...handoffFields }),
  { conversationId: RECORD_EXAMPLE.conversationId!, state: 'human', operator: OPERATOR, at: 'e000000000000043' },
);

export const handoffReason = z
  .string()
  .trim()
  .max(HANDOFF_LIMITS.reason)
  .optional()
  .describe(`Why, at most ${HANDOFF_LIMITS.reason} characters.`);

const queueEntry: z.ZodType<Wire.QueueEntry> = z.object({
  conversationId: z.string(),
  state: z
    .enum(['waiting', 'human', 'missed'])
    .describe('`missed`: nobody took it in time, and it went back to its agents.'),
  requestedAt: timestamp(),
  requestedBy: z.enum(['agent', 'visitor']),
  reason: z.string().nullable(),
  visitor: z.object({
    userId: z.string(),
    name: z.string().nullable().describe("The member's `display_name`, when the site gave one."),
  }),
  operator: operatorIdentity.nullable().describe('Who holds it (`human`).'),
  lastMessages: z
    .array(
      z.object({
        from: z.enum(['visitor', 'agent', 'operator']),
        name: z.string().optional().describe("The agent's or the person's name."),
        text: z.string(),
      }),
    )
    .max(QUEUE_LIMITS.messages)
    .describe(`Its newest messages with text, at most ${QUEUE_LIMITS.messages}, oldest first.`),
  contact: z
    .record(z.unknown())
    .nullable()
    .describe('What the visitor left in the contact card after nobody came (`missed`), or null.'),
});

const QUEUE_EXAMPLE: Wire.QueueEntry = {
  conversationId: RECORD_EXAMPLE.conversationId!,
  state: 'waiting',
  requestedAt: '2026-11-21T10:00:00.000Z',
  requestedBy: 'visitor',
  reason: 'I was charged twice',
  visitor: { userId: 'u_Jd82kQm1Zx7Lp0Ws5Rt9Vg', name: 'Ada' },
  operator: null,
  lastMessages: [{ from: 'visitor', text: 'I was charged twice for my order' }],
  contact: null,
};

export const operatorQueue: z.ZodType<Wire.OperatorQueue> = described(
  `The conversations waiting for a person, newest request first (at most ${QUEUE_LIMITS.waiting}); those this operator ` +
    `holds (at most ${QUEUE_LIMITS.mine}); the latest that nobody took (at most ${QUEUE_LIMITS.missed}).`,
  z.object({
    waiting: z.array(queueEntry).max(QUEUE_LIMITS.waiting),
    mine: z.array(queueEntry).max(QUEUE_LIMITS.mine),
    missed: z.array(queueEntry).max(QUEUE_LIMITS.missed),
  }),
  { waiting: [QUEUE_EXAMPLE], mine: [], missed: [] },
);

/** The components the OpenAPI document names of these shapes. */
export const handoffComponents = { HandoffStatus: handoffStatus, OperatorQueue: operatorQueue, QueueEntry: queueEntry };
