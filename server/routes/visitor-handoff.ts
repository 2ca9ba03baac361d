import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { idParams } from './conversation-schemas.js';
import { handoffReason, handoffResult } from './handoff-schemas.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const body = described('Why the visitor asks (optional).', z.object({ reason: handoffReason }).optional(), {
  reason: 'I was charged twice',
});

/** The visitor asks for a person of the staff: "Talk to a person" (our extension, docs/protocol.md). */
export default function visitorHandoffRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  app.post(
    '/conversations/:id/handoff',
    {
      schema: {
        tags: ['conversations'],
        operationId: 'requestHandoff',
        summary: 'Ask for a person',
        description:
          "Asks for a person of the workspace's staff: a `handoff_requested` record, and the conversation waits " +
          '(`waiting`): the agents answer no more, and what the visitor writes waits for the person. Asking again ' +
          'while a person is asked for or holds it changes nothing and answers who does. A reply running meanwhile ' +
          'finishes. Nobody taking it in time ends the wait: an agent then asks for contact details.',
        security: security.user,
        params: idParams,
        body,
        response: { 200: handoffResult },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          { 400: { 'body/reason String must contain at most 500 character(s)': 'The reason is over its limit.' } },
          documentedRefusals({ operators_off: "The conversation's workspace has no operators." }),
        ],
      },
    },
    async (req) => {
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      return ctx.handoffs.request(conversation, req.body?.reason);
    },
  );
}
