import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../errors.js';
import type { HistoryPage } from '../store/conversations.js';
import { parseCursor } from '../store/conversations.js';

/** The request shapes of the conversation and training routes (zod, so messages read `body/message …`). */

const partSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1) }) }),
  z.object({ type: z.literal('file'), file: z.object({ filename: z.string().min(1), file_url: z.string().min(1) }) }),
  z.object({ type: z.literal('text'), text: z.string() }),
]);

const messageFields = {
  message: z.string(),
  parts: z.array(partSchema).max(20).optional(),
  metadata: z.record(z.unknown()).optional(),
};

/** An empty message says nothing: it must carry parts or answer a card. */
const notEmpty = (body: { message: string; parts?: unknown[] }, answersCard: boolean, issue: z.RefinementCtx) => {
  if (body.message.trim() === '' && !body.parts?.length && !answersCard) {
    issue.addIssue({ code: 'custom', path: ['message'], message: 'String must contain at least 1 character(s)' });
  }
};

export const sendRequestSchema = z
  .object({
    ...messageFields,
    conversationId: z.string().min(1).optional(),
    targetAgentIds: z.array(z.string().min(1)).min(1).max(10).optional(),
    newConversation: z.boolean().optional(),
    mcpTokens: z.record(z.string()).optional(),
    toolAction: z.boolean().optional(),
    senderName: z.string().max(200).optional(),
    senderAvatar: z.string().max(2048).optional(),
  })
  .superRefine((body, issue) => notEmpty(body, !!body.toolAction, issue));

export const trainingSendSchema = z
  .object(messageFields)
  .superRefine((body, issue) => notEmpty(body, body.metadata !== undefined, issue));

const booleanFlag = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true');

export const streamQuerySchema = z.object({
  lastEventId: z.string().optional(),
  turns: z.coerce.number().int().min(1).max(100).optional(),
});

export const messagesQuerySchema = z.object({ includeThinking: booleanFlag });

export const historyQuerySchema = z.object({
  before: z.string().optional(),
  turns: z.coerce.number().int().min(1).max(100).default(10),
  maxEntries: z.coerce.number().int().min(1).max(500).default(200),
  includeThinking: booleanFlag,
});

export const idParams = z.object({ id: z.string() });

/** A history query as the store takes it. 400 `invalid before` for a cursor that is not one of ours. */
export function historyPageOf(query: z.output<typeof historyQuerySchema>): HistoryPage {
  const before = query.before === undefined || query.before === '' ? undefined : parseCursor(query.before);
  if (query.before && before === undefined) throw badRequest('invalid before');
  return { before, turns: query.turns, maxEntries: query.maxEntries, includeThinking: query.includeThinking };
}

/** The origin the caller used, for links handed out during the turn (pay page, uploaded files). */
export const baseUrlOf = (req: FastifyRequest) => `${req.protocol}://${req.headers.host ?? req.host}`;
