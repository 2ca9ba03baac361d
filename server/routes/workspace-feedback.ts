import type { FeedbackPage } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, workspaceAdminHook, workspaceAdminRefusals } from '../http/auth.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { workspaceFeedback } from '../store/feedback-rows.js';
import { FEEDBACK_EXAMPLE, feedbackFields } from './replies.js';
import type { ZodApp } from './route-module.js';

const query = z.object({
  before: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'must be the `next` of a page')
    .optional()
    .describe('The `next` of the previous page.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Entries per page, 1 to 100.'),
  agentId: z.string().max(200).optional().describe("Only this agent's replies."),
  rating: z.enum(['up', 'down']).optional().describe('Only 👍 (`up`) or only 👎 (`down`).'),
});

const page = described(
  "A page of the workspace's feedback, newest first; `next` is the cursor of the next page (null: the last).",
  z.object({
    feedback: z.array(
      z.object({
        id: z.string(),
        user_id: z.string().describe('The visitor who gave it.'),
        ...feedbackFields,
        text: z.string().describe('The text of the reply.'),
      }),
    ),
    next: z.string().nullable(),
  }),
  {
    feedback: [
      { id: '42', user_id: 'u_Jd82kQm1Zx7Lp0Ws5Rt9Vg', ...FEEDBACK_EXAMPLE, text: 'We open at 9 on Sundays.' },
    ],
    next: null,
  },
);

/** The workspace's feedback on its agents' replies (our extension), for its owner or its key. */
export default function workspaceFeedbackRoutes(app: ZodApp, { db }: AppContext) {
  app.addHook('onRequest', workspaceAdminHook(db));
  app.get(
    '/workspaces/:slug/feedback',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'listFeedback',
        summary: "Read visitors' feedback on the agents' replies",
        description:
          "Every visitor's 👍/👎 (with its reason and the reply's text) on the replies of the workspace's agents, " +
          'newest first (a feedback changed later keeps its place), a page at a time.',
        security: security.workspaceKeyOrOwner,
        params: z.object({ slug: z.string() }),
        querystring: query,
        response: { 200: page },
        refusals: [
          workspaceAdminRefusals(true),
          {
            400: {
              'querystring/before must be the `next` of a page': '`before` is not a cursor.',
              'querystring/limit Number must be less than or equal to 100': '`limit` is over 100.',
            },
          },
        ],
      },
    },
    async (req): Promise<FeedbackPage> => {
      const { before, limit, agentId, rating } = req.query;
      const result = await workspaceFeedback(db, req.workspace.id, {
        before: before === undefined ? undefined : Number(before),
        limit,
        agentId,
        rating,
      });
      return { feedback: result.feedback, next: result.next === null ? null : String(result.next) };
    },
  );
}
