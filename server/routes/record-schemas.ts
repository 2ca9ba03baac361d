import type * as Wire from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { described, documented } from '../http/openapi.js';
import { CURSOR } from '../store/record-rows.js';

/*
 * The record of docs/protocol.md "Record" and its raw events, as the conversation and training routes
 * answer with them. Typed against the wire types of `@svc/agent-sdk/protocol`, so the client's types and
 * this description of the wire cannot drift apart; the OpenAPI document names each (see openapi.ts), each
 * union's options too, so that a generator makes a class of each.
 */

/** A record id, the streams' cursor (a new schema each time: a schema used twice in one conversion becomes a broken `$ref`). */
export const recordId = (description: string) => documented(z.string(), { pattern: CURSOR.source, description });

/** An ISO 8601 timestamp in UTC, as the service writes every one. */
export const timestamp = () => z.string().datetime();

const imageUrlPart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1) }) });
const filePart = z.object({
  type: z.literal('file'),
  file: z.object({ filename: z.string().min(1), file_url: z.string().min(1) }),
});
const textPart = z.object({ type: z.literal('text'), text: z.string() });
export const messagePart: z.ZodType<Wire.MessagePart> = z.discriminatedUnion('type', [
  imageUrlPart,
  filePart,
  textPart,
]);

const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string() });
const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z
    .string()
    .describe(
      'Reserved names are cards: `collect_info`, `setup_connector`, `delegate`; `suggest_replies` offers the visitor replies to tap; `handoff` asks for a person of the staff.',
    ),
  input: z.record(z.unknown()),
  client: z
    .boolean()
    .optional()
    .describe(
      'A call of a tool the page gave the chat (`clientTools`): the turn ended waiting for the page, which answers with `toolAction` and `metadata.clientTool`.',
    ),
});
const imageBlock = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('url'), url: z.string() }),
});
const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.string(),
    is_error: z.boolean().optional(),
  })
  .describe("What an earlier `tool_use` of the agent returned: kept for the agent's own context, not shown.");
const contentBlock: z.ZodType<Wire.ContentBlock> = z.discriminatedUnion('type', [
  textBlock,
  thinkingBlock,
  toolUseBlock,
  imageBlock,
  toolResultBlock,
]);

const agentStatus = z.enum(['thinking', 'typing', 'tool', 'idle']);
const paymentStatus = z.enum(['pending', 'paid', 'expired', 'canceled']);

const fileAttachment: z.ZodType<Wire.FileAttachment> = z
  .object({ name: z.string(), workspacePath: z.string(), mimeType: z.string().optional(), size: z.number().optional() })
  .passthrough()
  .describe("A file an agent wrote in the conversation's workspace (read it with readConversationFile).");

const paymentGate: z.ZodType<Wire.PaymentGatePayload> = z.object({
  orderId: z.string(),
  amountCny: z.number().describe('Yuan, in whole fen: CN¥0.01 to CN¥100,000.'),
  title: z.string(),
  description: z.string().optional(),
  payUrl: z.string().url(),
  expiresAt: timestamp(),
});

const userRawEvent = z.object({
  type: z.literal('user'),
  message: z.object({
    role: z.literal('user'),
    content: z.array(z.object({ type: z.literal('text'), text: z.string() })),
  }),
  parts: z.array(messagePart).optional(),
  metadata: z.record(z.unknown()).optional(),
  toolAction: z.boolean().optional(),
  senderName: z.string().optional(),
  senderAvatar: z.string().optional(),
  replaces: z
    .string()
    .optional()
    .describe('This message asks again in place of that turn (regenerate, edit): its records are replaced.'),
});
const agentStatusRawEvent = z.object({ type: z.literal('agent_status'), agentId: z.string(), status: agentStatus });
const assistantDeltaRawEvent = z.object({
  type: z.literal('assistant_delta'),
  agentId: z.string(),
  messageId: z.string(),
  text: z.string().describe('Only the new text.'),
});
const assistantRawEvent = z.object({
  type: z.literal('assistant'),
  agentId: z.string(),
  message: z.object({ id: z.string(), role: z.literal('assistant'), content: z.array(contentBlock) }),
});
const attachmentRawEvent = z.object({ type: z.literal('attachment'), agentId: z.string(), file: fileAttachment });
const paymentGateRawEvent = z.object({ type: z.literal('payment_gate'), agentId: z.string(), payment: paymentGate });
const paymentGateResolutionRawEvent = z.object({
  type: z.literal('payment_gate_resolution'),
  orderId: z.string(),
  status: paymentStatus,
});
const resultRawEvent = z
  .object({
    type: z.literal('result'),
    subtype: z.enum(['success', 'error', 'interrupted']),
    is_error: z.boolean(),
    duration_ms: z.number(),
    agentIds: z.array(z.string()),
    error: z.string().optional().describe('A readable message, when `subtype` is `error`.'),
  })
  .describe('The end of a turn: exactly one per turn, the last of its records.');
export const operatorIdentity: z.ZodType<Wire.OperatorIdentity> = z
  .object({ id: z.string(), name: z.string(), avatarUrl: z.string().optional() })
  .describe("A person of the workspace's staff (an operator), as the site's backend named them.");
const handoffRequestedRawEvent = z
  .object({
    type: z.literal('handoff_requested'),
    by: z.enum(['agent', 'visitor']),
    reason: z.string().optional(),
    agentId: z.string().optional().describe('The agent that asked, with `by: agent`.'),
  })
  .describe(
    'A person of the staff was asked for: the agents answer no more until one has come and gone, or none came.',
  );
const operatorJoinedRawEvent = z
  .object({ type: z.literal('operator_joined'), operator: operatorIdentity })
  .describe('A person took the conversation over.');
const operatorMessageRawEvent = z
  .object({
    type: z.literal('operator_message'),
    operator: operatorIdentity,
    message: z.object({ id: z.string(), content: z.array(textBlock) }),
    parts: z.array(messagePart).optional(),
  })
  .describe("A person's message, marked as theirs.");
const operatorLeftRawEvent = z
  .object({ type: z.literal('operator_left'), operator: operatorIdentity, action: z.enum(['released', 'closed']) })
  .describe('The person gave the conversation back to its agents (`released`) or closed it (`closed`).');
const handoffUnansweredRawEvent = z
  .object({ type: z.literal('handoff_unanswered'), waitedSeconds: z.number().int() })
  .describe('Nobody took the conversation in time: its agents answer again, and one asks for contact details.');
const rawEvent: z.ZodType<Wire.ChatRawEvent> = z.discriminatedUnion('type', [
  userRawEvent,
  agentStatusRawEvent,
  assistantDeltaRawEvent,
  assistantRawEvent,
  attachmentRawEvent,
  paymentGateRawEvent,
  paymentGateResolutionRawEvent,
  resultRawEvent,
  handoffRequestedRawEvent,
  operatorJoinedRawEvent,
  operatorMessageRawEvent,
  operatorLeftRawEvent,
  handoffUnansweredRawEvent,
]);

/** A record as the stream and history show it: an agent's reply. */
export const RECORD_EXAMPLE: Wire.ChatStreamRecord = {
  id: 'e000000000000042',
  seq: 7,
  timestamp: '2026-11-21T10:00:00.000Z',
  sessionId: 'c_3kqZ0vJ9bX2m4Lr8Tn6wQg',
  conversationId: 'c_3kqZ0vJ9bX2m4Lr8Tn6wQg',
  turnId: 't_Vb7Xw1c9RkP2sQe5Nm4HzA',
  agentId: 'agent_echo',
  agentName: 'Echo',
  sender: 'agent',
  event: 'message',
  raw: {
    type: 'assistant',
    agentId: 'agent_echo',
    message: { id: 'm_Q2w9Er4Ty7Ui1Op3As6DfA', role: 'assistant', content: [{ type: 'text', text: 'Echo: hello' }] },
  },
};

export const chatStreamRecord: z.ZodType<Wire.ChatStreamRecord> = described(
  'One record of a conversation: a message, a delta of one, an agent status, a card, the end of a turn.',
  z.object({
    id: recordId('The cursor: opaque to clients (order ids with `compareRecordIds`), increasing in a conversation.'),
    seq: z.number().int().positive().describe('1, 2, 3… within the conversation.'),
    timestamp: timestamp(),
    sessionId: z.string().nullable().describe('The conversation id.'),
    conversationId: z.string().optional(),
    turnId: z.string().optional(),
    agentId: z.string().optional().describe('On every record an agent emits.'),
    agentName: z.string().optional().describe('On every record an agent emits.'),
    sender: z
      .enum(['user', 'assistant', 'agent', 'system'])
      .describe("This service sends `user`, `agent`, `system` (the service's own records, and a person's messages)."),
    event: z
      .string()
      .describe(
        'By `raw.type`: `message` (user, assistant, operator_message), `delta` (assistant_delta), `agent_status`, ' +
          '`attachment`, `payment_gate`, `payment_gate_resolution`, `result`, `handoff` (handoff_requested, ' +
          'operator_joined, operator_left, handoff_unanswered). A client ignores a value it does not know.',
      ),
    raw: rawEvent,
  }),
  RECORD_EXAMPLE,
);

/** The names of the shared shapes in the OpenAPI document's `components.schemas` (the protocol's wire types', where it names them). */
export const recordComponents = {
  ChatStreamRecord: chatStreamRecord,
  ChatRawEvent: rawEvent,
  UserRawEvent: userRawEvent,
  AgentStatusRawEvent: agentStatusRawEvent,
  AssistantDeltaRawEvent: assistantDeltaRawEvent,
  AssistantRawEvent: assistantRawEvent,
  AttachmentRawEvent: attachmentRawEvent,
  PaymentGateRawEvent: paymentGateRawEvent,
  PaymentGateResolutionRawEvent: paymentGateResolutionRawEvent,
  ResultRawEvent: resultRawEvent,
  HandoffRequestedRawEvent: handoffRequestedRawEvent,
  OperatorJoinedRawEvent: operatorJoinedRawEvent,
  OperatorMessageRawEvent: operatorMessageRawEvent,
  OperatorLeftRawEvent: operatorLeftRawEvent,
  HandoffUnansweredRawEvent: handoffUnansweredRawEvent,
  OperatorIdentity: operatorIdentity,
  ContentBlock: contentBlock,
  TextBlock: textBlock,
  ThinkingBlock: thinkingBlock,
  ToolUseBlock: toolUseBlock,
  ImageBlock: imageBlock,
  ToolResultBlock: toolResultBlock,
  MessagePart: messagePart,
  ImageUrlPart: imageUrlPart,
  FilePart: filePart,
  TextPart: textPart,
  FileAttachment: fileAttachment,
  PaymentGatePayload: paymentGate,
};
