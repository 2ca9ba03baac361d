/**
 * Records of the stream (docs/protocol.md, "Record"): the order of their ids, and the helpers of spec
 * section 6 that each read one record. Cards and delegations are `tool_use` blocks with reserved names;
 * agent input is checked before use, so a malformed card gives `null` instead of a broken one.
 */
import type {
  AssistantRawEvent,
  ChatStreamRecord,
  ConnectorSetupField,
  ConnectorSetupRequest,
  ContentBlock,
  Delegation,
  FileAttachment,
  InfoCollectField,
  InfoCollectPayload,
  PaymentGatePayload,
  PaymentResolution,
  ToolCall,
  ToolUseBlock,
  UserRawEvent,
} from './types.js';

/**
 * Orders record ids. They are opaque but strictly increasing within a conversation: a shorter id sorts first,
 * so unpadded numeric ids order correctly too, and ids of one length (`e` + 15 digits) compare as strings.
 */
export function compareRecordIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Tool names the helpers and the cards recognise (`request_payment` is the model runtime's function for a
 * payment card, which is a record of its own); no page tool takes one of them.
 */
export const RESERVED_TOOL_NAMES = {
  infoCollect: 'collect_info',
  connectorSetup: 'setup_connector',
  delegate: 'delegate',
  suggestReplies: 'suggest_replies',
  /** An agent asks for a person of the site's staff (our extension: docs/protocol.md "A person in the conversation"). */
  handoff: 'handoff',
  requestPayment: 'request_payment',
} as const;

/** Follow-up replies a `suggest_replies` call offers, at most, and the characters of each (docs/protocol.md). */
export const SUGGESTION_LIMITS = { count: 4, length: 80 } as const;

/**
 * What a connector type id is, everywhere one is made or read: an MCP server's name, a `setup_connector`
 * card's `connectorTypeId`, the path of `PUT /profile/credentials/{connectorTypeId}`: 1 to 64 lower-case
 * letters, digits, `_` and `-`, beginning with a letter or digit (`/connect Notion` connects `notion`).
 */
export const CONNECTOR_TYPE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The text of an `assistant` or `user` message record (text blocks joined); '' for every other record. */
export function extractText(record: ChatStreamRecord): string {
  return blocksOf(record, 'user')
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Every `tool_use` block of an `assistant` record. */
export function extractToolCalls(record: ChatStreamRecord): ToolCall[] {
  return toolUses(record).map(({ id, name, input }) => ({ id, name, input }));
}

/** The `result` record ends a turn. */
export function isTurnComplete(record: ChatStreamRecord): boolean {
  return record.raw.type === 'result';
}

/** The turn was interrupted (a `result` of subtype `interrupted`). */
export function isInterrupt(record: ChatStreamRecord): boolean {
  return record.raw.type === 'result' && record.raw.subtype === 'interrupted';
}

export function isAgentRecord(record: ChatStreamRecord): boolean {
  return record.sender === 'agent' || record.sender === 'assistant';
}

/** URLs of the image blocks of an `assistant` record. */
export function extractImages(record: ChatStreamRecord): string[] {
  return blocksOf(record).flatMap((block) =>
    block.type === 'image' && block.source?.type === 'url' && typeof block.source.url === 'string'
      ? [block.source.url]
      : [],
  );
}

/** The file of an `attachment` record. */
export function extractFileAttachment(record: ChatStreamRecord): FileAttachment | null {
  return record.raw.type === 'attachment' && record.raw.file ? record.raw.file : null;
}

export function isDelegationTool(name: string): boolean {
  return name === RESERVED_TOOL_NAMES.delegate;
}

/** Hand-overs to other agents (`delegate` tool calls) of an `assistant` record. */
export function extractDelegations(record: ChatStreamRecord): Delegation[] {
  const from = record.raw.type === 'assistant' ? record.raw.agentId : undefined;
  return toolUses(record)
    .filter((block) => isDelegationTool(block.name) && isString(block.input.agentId))
    .map(({ id, input }) => ({
      toolUseId: id,
      ...(from ? { fromAgentId: from } : {}),
      agentId: input.agentId as string,
      ...(isString(input.agentName) ? { agentName: input.agentName } : {}),
      task: isString(input.task) ? input.task : '',
    }));
}

/**
 * The follow-up replies an `assistant` record offers the visitor (its `suggest_replies` calls), each as the
 * visitor would send it. A stored record is not trusted: only non-empty strings count, trimmed, cut to
 * `SUGGESTION_LIMITS.length` characters, at most `SUGGESTION_LIMITS.count` of them, without repeats.
 */
export function extractSuggestions(record: ChatStreamRecord): string[] {
  const offered = toolUses(record)
    .filter((block) => block.name === RESERVED_TOOL_NAMES.suggestReplies && Array.isArray(block.input.suggestions))
    .flatMap((block) => block.input.suggestions as unknown[])
    .flatMap((item) => (isString(item) ? [[...item.trim()].slice(0, SUGGESTION_LIMITS.length).join('').trim()] : []))
    .filter(Boolean);
  return [...new Set(offered)].slice(0, SUGGESTION_LIMITS.count);
}

/** The payment card of a `payment_gate` record. */
export function extractPaymentGate(record: ChatStreamRecord): PaymentGatePayload | null {
  return record.raw.type === 'payment_gate' && record.raw.payment ? record.raw.payment : null;
}

export function isPaymentGate(record: ChatStreamRecord): boolean {
  return extractPaymentGate(record) !== null;
}

/** `{ orderId, status }` of a `payment_gate_resolution` record. */
export function extractPaymentResolution(record: ChatStreamRecord): PaymentResolution | null {
  const raw = record.raw;
  return raw.type === 'payment_gate_resolution' ? { orderId: raw.orderId, status: raw.status } : null;
}

/** The information-collection card (`collect_info` tool call) of an `assistant` record. */
export function extractInfoCollect(record: ChatStreamRecord): InfoCollectPayload | null {
  const block = toolUses(record).find((b) => b.name === RESERVED_TOOL_NAMES.infoCollect);
  if (!block || !isString(block.input.title) || !Array.isArray(block.input.fields)) return null;
  const { title, description, submitLabel } = block.input;
  return {
    toolUseId: block.id,
    title,
    ...(isString(description) ? { description } : {}),
    ...(isString(submitLabel) ? { submitLabel } : {}),
    fields: (block.input.fields as unknown[]).filter(isNamedField) as InfoCollectField[],
  };
}

export function isInfoCollect(record: ChatStreamRecord): boolean {
  return extractInfoCollect(record) !== null;
}

/** The connector-setup cards (`setup_connector` tool calls) of an `assistant` record. */
export function extractConnectorSetup(record: ChatStreamRecord): ConnectorSetupRequest[] {
  return toolUses(record)
    .filter(
      (b) =>
        b.name === RESERVED_TOOL_NAMES.connectorSetup &&
        isString(b.input.connectorTypeId) &&
        Array.isArray(b.input.fields),
    )
    .map(({ id, input }) => ({
      toolUseId: id,
      connectorTypeId: input.connectorTypeId as string,
      name: isString(input.name) ? input.name : (input.connectorTypeId as string),
      ...(isString(input.description) ? { description: input.description } : {}),
      ...(isString(input.server) ? { server: input.server, ...agentOf(record) } : {}),
      fields: (input.fields as unknown[]).filter(isNamedField) as ConnectorSetupField[],
    }));
}

/** The agent that raised a card (for a server's card: whose server the credentials are saved for). */
function agentOf(record: ChatStreamRecord): { agentId?: string } {
  const agentId = (record.raw as { agentId?: unknown }).agentId;
  return isString(agentId) ? { agentId } : {};
}

export function isConnectorSetup(record: ChatStreamRecord): boolean {
  return extractConnectorSetup(record).length > 0;
}

/** The content blocks of an `assistant` record (or of a record of type `alsoOf`); [] for every other record. */
function blocksOf(record: ChatStreamRecord, alsoOf?: 'user'): ContentBlock[] {
  const raw = record.raw as AssistantRawEvent | UserRawEvent;
  return (raw.type === 'assistant' || raw.type === alsoOf) && Array.isArray(raw.message?.content)
    ? raw.message.content
    : [];
}

function toolUses(record: ChatStreamRecord): ToolUseBlock[] {
  return blocksOf(record).filter(
    (block): block is ToolUseBlock =>
      block.type === 'tool_use' && isString(block.name) && typeof block.input === 'object' && block.input !== null,
  );
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isNamedField(field: unknown): boolean {
  const f = field as { name?: unknown; label?: unknown } | null;
  return typeof f === 'object' && f !== null && isString(f.name) && isString(f.label);
}
