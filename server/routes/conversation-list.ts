import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConversationList, ConversationSummary } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { badRequest, notFound } from '../http/errors.js';
import { described, documented } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { removeUploadFiles } from '../services/uploads.js';
import {
  fillListed,
  type ListedConversation,
  type ListPosition,
  listConversations,
  listedConversation,
  renameConversation,
} from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { messageRecords, previewOf, titleOf } from '../store/record-rows.js';
import { BIDI_CONTROLS, visible } from '../store/shown-text.js';
import { idParams } from './conversation-schemas.js';
import type { ZodApp } from './route-module.js';

/*
 * Our extension for what visitors expect of a chat (docs/protocol.md "Conversation list"): the caller's
 * conversations, newest first, a page at a time; renaming one; deleting one. Owner-only like every
 * conversation route: another user's conversation is 404 `conversation not found`.
 */

const SUMMARY_EXAMPLE: ConversationSummary = {
  id: 'c_Wd3Rt6Yu9Io2Pa5Sd8Fg1H',
  title: 'What can you do?',
  agentIds: ['agent_demo'],
  createdAt: '2026-11-26T09:14:03.120Z',
  updatedAt: '2026-11-26T09:14:05.871Z',
  lastMessage: {
    role: 'agent',
    text: 'I answer slash commands: /help lists them.',
    agentName: 'Demo',
  },
};

const conversationSummary = described(
  'A conversation as the list shows it.',
  z.object({
    id: z.string(),
    title: z
      .string()
      .nullable()
      .describe('The first message (at most 80 characters) until renamed; null before a message with text.'),
    agentIds: z.array(z.string()),
    createdAt: z.string().describe('When it began (ISO 8601).'),
    updatedAt: z.string().describe('When its newest record was stored: the order of the list.'),
    lastMessage: z
      .object({
        role: z.enum(['user', 'agent']),
        text: z
          .string()
          .describe(
            'At most 200 characters, in lines (a line break between two; in a line, whitespace as single spaces).',
          ),
        agentName: z.string().optional(),
      })
      .nullable()
      .describe('The newest message with text (a card answer is none); null before one.'),
  }),
  SUMMARY_EXAMPLE,
);

/** A page's end as the client carries it: the position's record id and conversation id. */
const CURSOR = /^(\d{1,15})\.(c_[A-Za-z0-9_-]{1,64})$/;
const cursorOf = (p: ListPosition) => `${p.lastRecord}.${p.id}`;

function positionOf(cursor: string | undefined): ListPosition | undefined {
  if (cursor === undefined) return undefined;
  const match = CURSOR.exec(cursor);
  if (!match) throw badRequest('invalid cursor');
  return { lastRecord: Number(match[1]), id: match[2]! };
}

/** How many message records are read from either end of a conversation for its title and preview. */
const READ_FOR_LISTING = 10;

/**
 * A conversation stored before migration 0004 has neither a title nor a preview (an append keeps them): the
 * list works them out the first time it shows it, by the same rules, from its first and newest messages (a
 * few records read, whatever its length), and stores them, so the next list reads them as any other.
 */
async function listed(db: Db, conversation: ListedConversation): Promise<ListedConversation> {
  const { id, title, lastMessage } = conversation;
  if (title !== null && lastMessage !== null) return conversation;
  const previews = async (end: 'oldest' | 'newest') =>
    (await messageRecords(db, id, end, READ_FOR_LISTING)).flatMap((record) => previewOf(record) ?? []);
  const firstAsked = title === null ? (await previews('oldest')).find((p) => p.role === 'user') : undefined;
  const filled = {
    title: title ?? (firstAsked ? titleOf(firstAsked.text) : null),
    lastMessage: lastMessage ?? (await previews('newest'))[0] ?? null,
  };
  if (filled.title === title && filled.lastMessage === lastMessage) return conversation;
  await fillListed(db, id, filled);
  return { ...conversation, ...filled };
}

const titleBody = described(
  'The new title.',
  z.object({
    title: z
      .string()
      .transform((t) => t.replace(BIDI_CONTROLS, '').replace(/\s+/g, ' ').trim())
      .pipe(z.string().min(1).max(200).refine(visible, 'must hold a character that can be seen'))
      .describe(
        '1 to 200 characters once bidirectional controls are removed, whitespace runs are one space and the ends ' +
          'are trimmed; at least one of them visible (not only zero-width or other invisible characters).',
      ),
  }),
  { title: 'Trip to Hangzhou' },
);

export default function conversationListRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  const tags = ['conversations'];

  app.get(
    '/conversations',
    {
      schema: {
        tags,
        operationId: 'listConversations',
        summary: "List the caller's conversations",
        description:
          "The caller's conversations (for a session token, those of its workspace), the one with the newest " +
          'record first, `limit` at a time. `nextCursor` asks for the next page; a conversation that gains a ' +
          'record while the list is paged moves to the top, so it is not met twice.',
        security: security.user,
        querystring: z.object({
          cursor: documented(z.string(), {
            pattern: CURSOR.source,
            description: 'The `nextCursor` of the page before (default: the first page).',
          }).optional(),
          limit: z.coerce.number().int().min(1).max(100).default(20).describe('At most this many conversations.'),
        }),
        response: {
          200: described(
            'A page of the list, newest first.',
            z.object({
              conversations: z.array(conversationSummary),
              nextCursor: z.string().nullable().describe('The cursor of the next page; null on the last page.'),
            }),
            { conversations: [SUMMARY_EXAMPLE], nextCursor: null },
          ),
        },
        refusals: [
          USER_REFUSALS,
          {
            400: {
              'invalid cursor': '`cursor` is not a `nextCursor` of this route.',
              'querystring/limit Number must be less than or equal to 100': '`limit` out of 1 to 100 (zod words each).',
            },
          },
        ],
      },
    },
    async (req): Promise<ConversationList> => {
      const from = positionOf(req.query.cursor);
      const { userId, workspaceId } = req.caller;
      const page = await listConversations(ctx.db, userId, workspaceId, from, req.query.limit);
      const conversations: ConversationSummary[] = [];
      for (const conversation of page.conversations) conversations.push(await listed(ctx.db, conversation));
      return {
        conversations,
        nextCursor: page.next ? cursorOf(page.next) : null,
      };
    },
  );

  app.patch(
    '/conversations/:id',
    {
      schema: {
        tags,
        operationId: 'renameConversation',
        summary: 'Rename a conversation',
        description: 'Sets the title the list shows; the messages are not changed.',
        security: security.user,
        params: idParams,
        body: titleBody,
        response: { 200: conversationSummary },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          {
            400: {
              'body/title Required': 'No `title`.',
              'body/title String must contain at least 1 character(s)': 'A title of nothing but whitespace.',
              'body/title String must contain at most 200 character(s)': 'A title over 200 characters.',
              'body/title must hold a character that can be seen':
                'A title of nothing but invisible characters (U+200B and the like).',
            },
          },
        ],
      },
    },
    async (req): Promise<ConversationSummary> => {
      const { id } = await ownConversation(ctx.db, req.caller, req.params.id);
      await renameConversation(ctx.db, id, req.body.title);
      return listed(ctx.db, (await listedConversation(ctx.db, id))!);
    },
  );

  app.delete(
    '/conversations/:id',
    {
      schema: {
        tags,
        operationId: 'deleteConversation',
        summary: 'Delete a conversation',
        description:
          'Deletes the conversation and everything it owns, in one transaction: its records, the feedback on its ' +
          'replies, the uploads it links to that no other conversation links to, the files its agents wrote, its handoff; its ' +
          'pending payment orders are canceled (their pages and status then answer 410). A reply running in it ' +
          'stops, and its open record streams end. Its id then answers 404 `conversation not found` everywhere.',
        security: security.user,
        params: idParams,
        response: { 204: described('Deleted.', z.null()) },
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS],
      },
    },
    async (req, reply) => {
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      const { id } = conversation;
      const deleted = await ctx.records.deleteConversation(id, (tx) => ctx.handoffs.deleting(tx, conversation));
      // Deleted meanwhile by another request: it is not the caller's any more.
      if (!deleted) throw notFound('conversation not found');
      removeUploadFiles(ctx, deleted.uploads);
      await rm(join(ctx.filesDir, 'conversations', id), {
        recursive: true,
        force: true,
      });
      return reply.code(204).send(null);
    },
  );
}
