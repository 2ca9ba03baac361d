import { CLIENT_TOOL_LIMITS } from '../protocol/client-tools.js';
import type { ClientToolAnswer, ClientToolCall, ClientToolDeclaration } from '../protocol/conversation-types.js';
import { retryDelay } from '../protocol/retry.js';
import { sleep } from './abort.js';
import { CLIENT_RETRY } from './retry-policy.js';

/**
 * Running the tools a page gives the chat (docs/client.md "Tools the page gives the chat"): a call of one becomes
 * the answer the page sends, whatever the handler does. Shared by any UI on the client and by `<svc-chat>`.
 */

/** What a handler is given besides the call's input. */
export interface PageToolContext {
  conversationId: string;
  /** The agent that called it. */
  agentId?: string;
  /** Aborted when the call's time is up (its answer is then an error already). */
  signal: AbortSignal;
}

/** A tool the page gives the chat: what the model reads of it, and what runs when it is called. */
export interface PageTool extends ClientToolDeclaration {
  /** Returns, or resolves to, a JSON value: what the model reads. Throwing answers the call with an error. */
  handler(input: Record<string, unknown>, context: PageToolContext): unknown;
  /** Ask the visitor first (Allow / Deny): `true`, or the sentence to ask with. */
  confirm?: boolean | string;
  /** How the chat names it to the visitor ("Used Add to cart"); default `name`. */
  title?: string;
  /** What the chat says once it ran ("Added to cart"); default "Used <title>". */
  done?: string;
  /** How long the handler may take, in ms (default and most CLIENT_TOOL_LIMITS.handlerMs). */
  timeoutMs?: number;
}

/** The sentences a call is answered with when it cannot give the handler's value: the model reads them. */
export const PAGE_TOOL_ERRORS = {
  unavailable: (name: string) => `The tool ${name} is not available on this page.`,
  denied: (name: string) => `The visitor did not allow ${name} to run.`,
  failed: (name: string, why: string) => `The tool ${name} failed: ${why}`,
  timedOut: (name: string, ms: number) => `The tool ${name} did not finish within ${ms / 1000} seconds.`,
  notJson: (name: string) => `The tool ${name} returned a value that is not JSON.`,
  tooLarge: (name: string, bytes: number) =>
    `The tool ${name} returned ${bytes} bytes as JSON; at most ${CLIENT_TOOL_LIMITS.valueBytes} reach the agent.`,
};

/** What the service and the model read of the page's tools: their declarations, without handlers. */
export function pageToolDeclarations(tools: readonly PageTool[]): ClientToolDeclaration[] {
  return tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}

export interface RunPageToolOptions {
  conversationId: string;
  /** For a `confirm` tool: resolves true when the visitor allows it. Without it, such a tool is never run. */
  confirm?: (tool: PageTool, call: ClientToolCall) => Promise<boolean>;
  /** How long the handler may take (default CLIENT_TOOL_LIMITS.handlerMs). */
  timeoutMs?: number;
}

/**
 * Runs the page's tool a call names and resolves to its answer, never rejecting: the handler's value when it is
 * JSON within the bound, else a sentence saying why not (no such tool here, the visitor denied it, it threw, it
 * took longer than `timeoutMs`).
 */
export async function runPageTool(
  tools: readonly PageTool[],
  call: ClientToolCall,
  options: RunPageToolOptions,
): Promise<ClientToolAnswer> {
  const errors = PAGE_TOOL_ERRORS;
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return { error: errors.unavailable(call.name) };
  if (tool.confirm && !(await options.confirm?.(tool, call))) return { error: errors.denied(call.name) };
  const ms = Math.min(
    tool.timeoutMs ?? options.timeoutMs ?? CLIENT_TOOL_LIMITS.handlerMs,
    CLIENT_TOOL_LIMITS.handlerMs,
  );
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ClientToolAnswer>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ error: errors.timedOut(call.name, ms) });
    }, ms);
  });
  const ran = (async (): Promise<ClientToolAnswer> => {
    try {
      const context = { conversationId: options.conversationId, agentId: call.agentId, signal: controller.signal };
      return pageToolAnswer(call.name, await tool.handler(call.input, context));
    } catch (err) {
      return { error: errors.failed(call.name, err instanceof Error ? err.message : String(err)) };
    }
  })();
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A handler's value as the answer to a call of tool `name`: JSON (undefined is null) within the bound, else why not. */
export function pageToolAnswer(name: string, value: unknown): ClientToolAnswer {
  let json: string;
  try {
    json = JSON.stringify(value ?? null);
  } catch {
    return { error: PAGE_TOOL_ERRORS.notJson(name) };
  }
  if (json === undefined) return { error: PAGE_TOOL_ERRORS.notJson(name) };
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > CLIENT_TOOL_LIMITS.valueBytes) return { error: PAGE_TOOL_ERRORS.tooLarge(name, bytes) };
  return { output: JSON.parse(json) };
}

/** Tries of an answer's send while the service is busy or away (503 with Retry-After, no connection): about a minute. */
const ANSWER_RETRY = { ...CLIENT_RETRY, retries: 8 };

/**
 * Sends an answer (`send`, which reuses one `Idempotency-Key` on every try) again while the service is busy or
 * cannot be reached. Safe on any service: a call takes one answer, so a repeat the service stored already is a 409.
 */
export async function sendAnswer<T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      const delay = signal?.aborted ? undefined : retryDelay(err, attempt, ANSWER_RETRY);
      if (delay === undefined) throw err;
      await sleep(delay, signal);
    }
  }
}
