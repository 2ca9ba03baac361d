/**
 * Tools the page gives the chat (docs/protocol.md "Tools the page gives the chat"): the rule a page tool's name
 * follows, the bounds of a declaration and of an answer, the calls of an `assistant` record, and the `metadata`
 * of the `toolAction` message that answers one, written and read here so the widget, the client and the service
 * cannot drift apart.
 */
import { RESERVED_TOOL_NAMES } from './records.js';
import type { ChatStreamRecord, ClientToolAnswer, ClientToolCall, ToolUseBlock, UserRawEvent } from './types.js';

const KB = 1024;

/** How many tools a send declares, how big each part may be, and how long the widget waits for a handler. */
export const CLIENT_TOOL_LIMITS = {
  /** Tools of one send. */
  count: 20,
  /** A tool's `description`, in characters. */
  descriptionLength: 1000,
  /** A tool's `parameters` (a JSON Schema), as JSON. */
  parametersBytes: 8 * KB,
  /** The whole `clientTools` of a send, as JSON. */
  declarationsBytes: 32 * KB,
  /** A call's `input` as the model wrote it, and an answer's `output`, each as JSON. */
  valueBytes: 16 * KB,
  /** An answer's `error` sentence, in characters. */
  errorLength: 1000,
  /** How long the widget waits for a handler before it answers with an error. */
  handlerMs: 30_000,
} as const;

/** A page tool's name: a letter, then up to 63 letters, digits, `_` and `-` (what model endpoints take). */
export const CLIENT_TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const RESERVED = new Set<string>(Object.values(RESERVED_TOOL_NAMES));

/**
 * What is wrong with `name` as a page tool's name, or undefined when nothing is: it follows CLIENT_TOOL_NAME,
 * holds no `__` (the service names MCP tools `<server>__<tool>`) and is no reserved tool's name.
 */
export function clientToolNameProblem(name: string): string | undefined {
  if (!CLIENT_TOOL_NAME.test(name)) return 'must be a letter, then up to 63 letters, digits, _ and -';
  if (name.includes('__')) return 'must not hold __ (the names of MCP tools)';
  if (RESERVED.has(name)) return 'is the name of a reserved tool';
  return undefined;
}

/** The calls of page tools (`tool_use` blocks marked `client: true`) in an `assistant` record. */
export function extractClientToolCalls(record: ChatStreamRecord): ClientToolCall[] {
  const raw = record.raw;
  if (raw.type !== 'assistant' || !Array.isArray(raw.message?.content)) return [];
  return raw.message.content
    .filter(
      (block): block is ToolUseBlock =>
        block.type === 'tool_use' &&
        block.client === true &&
        typeof block.id === 'string' &&
        typeof block.name === 'string' &&
        typeof block.input === 'object' &&
        block.input !== null,
    )
    .map(({ id, name, input }) => ({ toolUseId: id, name, input, agentId: raw.agentId }));
}

/** The `metadata` of the `toolAction` message that answers page tool call `toolUseId` with what it returned. */
export function clientToolResultMetadata(toolUseId: string, output: unknown) {
  return { clientTool: { toolUseId, output } };
}

/** The `metadata` of the `toolAction` message that answers page tool call `toolUseId` with a failure. */
export function clientToolErrorMetadata(toolUseId: string, error: string) {
  return { clientTool: { toolUseId, error } };
}

/** The `metadata` of an answer, whichever it is. */
export function clientToolAnswerMetadata(toolUseId: string, answer: ClientToolAnswer) {
  return 'error' in answer
    ? clientToolErrorMetadata(toolUseId, answer.error)
    : clientToolResultMetadata(toolUseId, answer.output);
}

/** The page tool call a `toolAction` message answers, and how; undefined when it answers none. */
export function readClientToolAnswer(raw: UserRawEvent): ({ toolUseId: string } & ClientToolAnswer) | undefined {
  const answer = raw.toolAction ? raw.metadata?.clientTool : undefined;
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { toolUseId, output, error } = answer as Record<string, unknown>;
  if (typeof toolUseId !== 'string') return undefined;
  return typeof error === 'string' ? { toolUseId, error } : { toolUseId, output: output ?? null };
}
