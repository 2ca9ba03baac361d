import type * as Wire from '@svc/agent-sdk/protocol';
import { z } from 'zod';

/*
 * The record of docs/protocol.md "Record" and its raw events, as the conversation and training routes
 * answer with them. Typed against the wire types of `@svc/agent-sdk/protocol`, so the client's types and
 * this description of the wire cannot drift apart; the OpenAPI document names each (see openapi.ts).
 */

export const messagePart: z.ZodType<Wire.MessagePart> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1) }) }),
  z.object({ type: z.literal('file'), file: z.object({ filename: z.string().min(1), file_url: z.string().min(1) }) }),
  z.object({ type: z.literal('text'), text: z.string() }),
]);

const contentBlock: z.ZodType<Wire.ContentBlock> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.unknown()) }),
  z.object({ type: z.literal('image'), source: z.object({ type: z.literal('url'), url: z.string() }) }),
]);

const agentStatus = z.enum(['thinking', 'typing', 'tool', 'idle']);
const paymentStatus = z.enum(['pending', 'paid', 'expired', 'canceled']);

const fileAttachment: z.ZodType<Wire.FileAttachment> = z
  .object({ name: z.string(), workspacePath: z.string(), mimeType: z.string().optional(), size: z.number().optional() })
  .passthrough();

const paymentGate: z.ZodType<Wire.PaymentGatePayload> = z.object({
  orderId: z.string(),
  amountCny: z.number(),
  title: z.string(),
  description: z.string().optional(),
  payUrl: z.string(),
  expiresAt: z.string(),
});

const rawEvent: z.ZodType<Wire.ChatRawEvent> = z.discriminatedUnion('type', [
  z.object({
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
  }),
  z.object({ type: z.literal('agent_status'), agentId: z.string(), status: agentStatus }),
  z.object({
    type: z.literal('assistant_delta'),
    agentId: z.string(),
    messageId: z.string(),
    text: z.string().describe('Only the new text.'),
  }),
  z.object({
    type: z.literal('assistant'),
    agentId: z.string(),
    message: z.object({ id: z.string(), role: z.literal('assistant'), content: z.array(contentBlock) }),
  }),
  z.object({ type: z.literal('attachment'), agentId: z.string(), file: fileAttachment }),
  z.object({ type: z.literal('payment_gate'), agentId: z.string(), payment: paymentGate }),
  z.object({ type: z.literal('payment_gate_resolution'), orderId: z.string(), status: paymentStatus }),
  z.object({
    type: z.literal('result'),
    subtype: z.enum(['success', 'error', 'interrupted']),
    is_error: z.boolean(),
    duration_ms: z.number(),
    agentIds: z.array(z.string()),
    error: z.string().optional(),
  }),
]);

export const chatStreamRecord: z.ZodType<Wire.ChatStreamRecord> = z.object({
  id: z.string().describe('The cursor: `e` + 15 digits, strictly increasing in a conversation.'),
  seq: z.number().int(),
  timestamp: z.string(),
  sessionId: z.string().nullable(),
  conversationId: z.string().optional(),
  turnId: z.string().optional(),
  agentId: z.string().optional(),
  agentName: z.string().optional(),
  sender: z.enum(['user', 'assistant', 'agent', 'system']),
  event: z.string().describe('`message`, `delta`, `agent_status`, `attachment`, `payment_gate`, … (see `raw.type`)'),
  raw: rawEvent,
});

/** The names of the shared shapes in the OpenAPI document's `components.schemas`. */
export const recordComponents = {
  ChatStreamRecord: chatStreamRecord,
  ChatRawEvent: rawEvent,
  ContentBlock: contentBlock,
  MessagePart: messagePart,
  PaymentGatePayload: paymentGate,
};
