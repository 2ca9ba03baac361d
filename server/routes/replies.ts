import { createHash } from 'node:crypto';
import type { Feedback } from '@svc/agent-sdk/protocol';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { described } from '../http/openapi.js';
import { baseUrlOf } from '../http/public-url.js';
import type { AppContext } from '../services/context.js';
import { starterPromptsOf } from '../store/agent-rows.js';
import { feedbackOfConversation, saveFeedback } from '../store/feedback-rows.js';
import { agentMessage } from '../store/history-rows.js';
import type { SendKey } from '../store/send-result-rows.js';
import { replaceLastTurn } from '../turns/replace-turn.js';
import { allowedAgent } from '../turns/send-target.js';
import { idParams, MESSAGE_REFUSALS, messageFields, notEmpty, sendHeaders } from './conversation-schemas.js';
import { sendBody, sendResult } from './conversations.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const { mcpTokens, clientTools } = sendBody.innerType().shape;

const regenerateBody = described(
  'Nothing is needed; `mcpTokens` and `clientTools` as in a send.',
  z.object({ mcpTokens, clientTools }).optional(),
  {},
);

const editBody = described(
  "The visitor's message as edited.",
  z
    .object({ message: messageFields.message, parts: messageFields.parts, mcpTokens, clientTools })
    .superRefine((body, issue) => notEmpty(body, false, issue)),
  { message: 'Hello again' },
);

/** What regenerate and edit refuse besides what a send refuses. */
const REPLACE_REFUSALS = documentedRefusals({
  nothing_to_replace: 'The conversation holds no message yet.',
  conversation_changed: 'Another message was stored while this one was being made.',
});

export const FEEDBACK_REASON_MAX = 500;

const feedbackBody = described(
  "The visitor's verdict on the reply, and why.",
  z.object({
    rating: z.enum(['up', 'down']),
    reason: z
      .string()
      .max(FEEDBACK_REASON_MAX)
      .optional()
      .describe(`Why, in the visitor's words (at most ${FEEDBACK_REASON_MAX} characters); empty or none: no reason.`),
  }),
  { rating: 'down', reason: 'It gave the wrong opening hours.' },
);

/** One feedback as the routes answer it (the owner's list adds who gave it and the reply's text). */
export const FEEDBACK_EXAMPLE: Feedback = {
  conversationId: 'c_3kqZ0vJ9bX2m4Lr8Tn6wQg',
  messageId: 'm_Q2w9Er4Ty7Ui1Op3As6DfA',
  agentId: 'agent_echo',
  rating: 'down',
  reason: 'It gave the wrong opening hours.',
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:02:00.000Z',
};

export const feedbackFields = {
  conversationId: z.string(),
  messageId: z.string(),
  agentId: z.string().describe('The agent that wrote the reply.'),
  rating: z.enum(['up', 'down']),
  reason: z.string().nullable(),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime().describe('When it was last changed.'),
};

const feedback = described(
  "The visitor's feedback on the reply, as stored.",
  z.object(feedbackFields),
  FEEDBACK_EXAMPLE,
);

const conversationFeedback = described(
  "The caller's feedback in the conversation, oldest first.",
  z.object({ feedback: z.array(z.object(feedbackFields)) }),
  { feedback: [FEEDBACK_EXAMPLE] },
);

const messageParams = idParams.extend({ messageId: z.string() });

/** A regenerate's or an edit's `Idempotency-Key`: its fingerprint names the route, so a send's key is told apart. */
function replaceKeyOf(req: FastifyRequest, owner: string): SendKey | undefined {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') return undefined;
  const { mcpTokens: _, ...request } = (req.body ?? {}) as Record<string, unknown>;
  const fingerprint = createHash('sha256')
    .update(`${req.url}\n${JSON.stringify(request)}`)
    .digest('base64url');
  return { ownerId: owner, key, fingerprint };
}

/**
 * Acting on replies (our extension, docs/protocol.md "Acting on replies"): regenerate the last reply, edit the
 * visitor's last message, and the visitor's feedback on a reply. The owner reads the feedback through
 * `GET /workspaces/{slug}/feedback` (workspace-feedback.ts).
 */
export default function repliesRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  const tags = ['conversations'];

  app.post(
    '/conversations/:id/regenerate',
    {
      schema: {
        tags,
        operationId: 'regenerate',
        summary: 'Ask the last question again',
        description:
          "A new turn that asks the conversation's last message again, in place of its last turn: its user record " +
          'carries `replaces` (the replaced turn), whose records stay in history and are left out of what the ' +
          'agents are given. Answers like a send; an `Idempotency-Key` works as on a send.',
        security: security.user,
        params: idParams,
        headers: sendHeaders,
        body: regenerateBody,
        response: { 200: sendResult },
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS, { 409: MESSAGE_REFUSALS[409]! }, REPLACE_REFUSALS],
      },
    },
    async (req) =>
      replaceLastTurn(
        ctx,
        req.caller,
        req.params.id,
        { mcpTokens: req.body?.mcpTokens, clientTools: req.body?.clientTools, baseUrl: baseUrlOf(ctx, req) },
        replaceKeyOf(req, req.caller.userId),
      ),
  );

  app.post(
    '/conversations/:id/edit',
    {
      schema: {
        tags,
        operationId: 'edit',
        summary: "Edit the visitor's last message",
        description:
          "A new turn with `message` in place of the conversation's last message and its reply: as regenerate, " +
          'with the edited text (and `parts`). A card answer cannot be edited.',
        security: security.user,
        params: idParams,
        headers: sendHeaders,
        body: editBody,
        response: { 200: sendResult },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          MESSAGE_REFUSALS,
          REPLACE_REFUSALS,
          documentedRefusals({ card_answer: 'The last message answers a card (`toolAction`).' }),
        ],
      },
    },
    async (req) =>
      replaceLastTurn(
        ctx,
        req.caller,
        req.params.id,
        {
          message: req.body.message,
          parts: req.body.parts,
          mcpTokens: req.body.mcpTokens,
          clientTools: req.body.clientTools,
          baseUrl: baseUrlOf(ctx, req),
        },
        replaceKeyOf(req, req.caller.userId),
      ),
  );

  app.put(
    '/conversations/:id/messages/:messageId/feedback',
    {
      schema: {
        tags,
        operationId: 'setFeedback',
        summary: 'Give feedback on a reply',
        description:
          "The caller's 👍 (`up`) or 👎 (`down`) on an agent's reply (`{messageId}`, the `raw.message.id` of its " +
          '`assistant` record), with an optional reason. One per caller per message: a second call changes it. ' +
          "The workspace's owner reads it with `GET /workspaces/{slug}/feedback`.",
        security: security.user,
        params: messageParams,
        body: feedbackBody,
        response: { 200: feedback },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          {
            400: {
              "body/rating Invalid enum value. Expected 'up' | 'down', received 'meh'":
                '`rating` is neither `up` nor `down`.',
              'body/rating Required': 'No `rating`.',
              [`body/reason String must contain at most ${FEEDBACK_REASON_MAX} character(s)`]:
                'The reason is too long.',
            },
            404: { 'message not found': 'No agent reply `{messageId}` in the conversation.' },
          },
        ],
      },
    },
    async (req) => {
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      const message = await agentMessage(ctx.db, conversation.id, req.params.messageId);
      if (!message) throw notFound('message not found');
      const saved = await saveFeedback(ctx.db, {
        conversationId: conversation.id,
        messageId: req.params.messageId,
        agentId: message.agentId,
        userId: req.caller.userId,
        rating: req.body.rating,
        reason: req.body.reason?.trim() || null,
        text: message.text,
      });
      // An agent no longer there has no workspace to read the feedback.
      if (!saved) throw notFound('message not found');
      return saved;
    },
  );

  app.get(
    '/agents/:agentId/prompts',
    {
      schema: {
        tags,
        operationId: 'agentPrompts',
        summary: "An agent's starter prompts",
        description:
          'The prompts a chat offers as buttons before its first message (agent settings: `starter_prompts`), for ' +
          "a visitor of the agent's workspace (a personal API key: any agent).",
        security: security.user,
        params: z.object({ agentId: z.string() }),
        response: {
          200: described(
            "The agent's starter prompts (none: an empty list).",
            z.object({ agentId: z.string(), starter_prompts: z.array(z.string()) }),
            { agentId: 'agent_aria', starter_prompts: ['What can you do?', 'Show me a payment card'] },
          ),
        },
        refusals: [
          USER_REFUSALS,
          documentedRefusals({ agent_not_found: "No such agent, or not of the session token's workspace." }),
        ],
      },
    },
    async (req) => {
      const agent = await allowedAgent(ctx.db, req.caller, req.params.agentId);
      return { agentId: agent.id, starter_prompts: starterPromptsOf(agent) };
    },
  );

  app.get(
    '/conversations/:id/feedback',
    {
      schema: {
        tags,
        operationId: 'conversationFeedback',
        summary: "Read one's feedback in a conversation",
        description:
          'What the caller said of the replies of the conversation, so a chat shows it again after a reload.',
        security: security.user,
        params: idParams,
        response: { 200: conversationFeedback },
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS],
      },
    },
    async (req) => {
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      return { feedback: await feedbackOfConversation(ctx.db, req.caller.userId, conversation.id) };
    },
  );
}
