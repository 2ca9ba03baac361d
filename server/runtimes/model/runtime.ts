import type { ContentBlock, ToolResultBlock, ToolUseBlock } from '@svc/agent-sdk/protocol';
import { RESERVED_TOOL_NAMES } from '@svc/agent-sdk/protocol';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { randomId } from '../../store/ids.js';
import {
  ReplyFailure,
  type Runtime,
  type StoredFile,
  type TextStream,
  TURN_FAILED,
  type TurnInput,
  type TurnIO,
} from '../types.js';
import { type CardCall, cardTools, PAYMENT_TOOL } from './cards.js';
import { PAGE_WAITING, type PageTools, pageTools } from './client-tools.js';
import { HANDOFF_ASKED } from './handoff.js';
import { modelMessages, SUGGESTED } from './history.js';
import { McpToolset } from './mcp.js';
import {
  apiKeyFor,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TURN_TIMEOUT_MS,
  type ModelOptions,
  modelOptionsSchema,
} from './options.js';
import { boundedFetch, streamStep } from './upstream.js';

/** Model requests in one turn at most (each round of tool calls is one more). */
const MAX_STEPS = 8;
/** How long a payment card stays payable. */
const PAYMENT_EXPIRES_IN_SECONDS = 900;

/**
 * The `model` runtime: an OpenAI-compatible chat-completions endpoint (through the `openai` client, streamed)
 * speaks for the agent. The reserved cards are offered as functions; a card call shows the card and ends the
 * turn, and the visitor's answer is the call's result in the next one; so is a call of a tool the page gave the
 * chat (client-tools.ts), which the page answers. Suggested replies (`suggest_replies`) are stored with the reply
 * and end the turn too, without waiting for anything, as does `handoff` (a person is asked for). MCP tools are
 * called in the turn and their results stored (as `tool_result` blocks) with the agent's next message.
 */
export const modelRuntime: Runtime = {
  async run(input, io) {
    const options = optionsOf(input);
    const apiKey = apiKeyFor(options);
    const log = (line: string) => io.log(apiKey ? line.replaceAll(apiKey, '[key]') : line);
    // Every answer's bytes are bounded before the client decodes them (upstream.ts, UPSTREAM_BOUNDS).
    const client = new OpenAI({
      baseURL: options.base_url,
      apiKey: apiKey ?? 'none',
      maxRetries: 0,
      fetch: boundedFetch,
    });
    const cards = cardTools(input.agent, input.workspaceAgents, input.delegatedBy !== undefined, input.operators);
    // A turn's time limit, beside its 4 MB: past it the reply stops with an error saying so.
    const limitMs = options.turn_timeout_ms ?? DEFAULT_TURN_TIMEOUT_MS;
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(new ReplyFailure(TURN_FAILED.timeLimit(limitMs))), limitMs);
    const signal = AbortSignal.any([io.signal, limit.signal]);
    try {
      await runTurn(input, io, options, client, cards, signal, log);
    } catch (err) {
      if (limit.signal.aborted && !io.signal.aborted) throw limit.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (limit.signal.aborted && !io.signal.aborted) throw limit.signal.reason;
  },
};

async function runTurn(
  input: TurnInput,
  io: TurnIO,
  options: ModelOptions,
  client: OpenAI,
  cards: ReturnType<typeof cardTools>,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  {
    const mcp = await McpToolset.connect(
      options.mcp_servers ?? [],
      async (server) =>
        (Object.hasOwn(input.mcpTokens, server.name) ? input.mcpTokens[server.name] : undefined) ??
        (await io.serverCredentials(server.url))?.token,
      { signal, log },
    );
    try {
      const system = options.system_prompt ?? defaultPrompt(input);
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: system },
        ...modelMessages(input, await uploadsLinked(input, io)),
      ];
      const page = pageTools(input.clientTools);
      const turn = new ModelTurn(io, cards, page, mcp);
      const tools = [...cards.definitions, ...page.definitions, ...mcp.tools];
      for (let step = 0; step < MAX_STEPS; step++) {
        let stream: TextStream | undefined;
        const reply = await streamStep(
          client,
          {
            model: options.model!,
            messages,
            stream: true,
            ...(options.temperature !== undefined && {
              temperature: options.temperature,
            }),
            ...(options.max_tokens !== undefined && {
              max_tokens: options.max_tokens,
            }),
            ...(tools.length && { tools }),
          },
          {
            signal,
            idleMs: options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS,
            retries: options.max_retries ?? DEFAULT_MAX_RETRIES,
            onText(text) {
              stream ??= io.streamText();
              stream.write(text);
            },
            log,
            meter: io.model,
          },
        );
        const done = await turn.act(reply.text, reply.calls, stream, messages);
        if (done) return;
        io.status('thinking');
      }
      throw new ReplyFailure(TURN_FAILED.toolLoop);
    } finally {
      await mcp.close();
    }
  }
}

/** A tool call of one step, with the id its `tool_use` block and its result share. */
interface Call {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Set when the arguments were not a JSON object. */
  error?: string;
}

/** One turn's acting on the model's steps: stores each step's message and runs its tool calls. */
class ModelTurn {
  /** Results of the last step's MCP calls, stored with the agent's next message. */
  private carried: ToolResultBlock[] = [];

  constructor(
    private readonly io: TurnIO,
    private readonly cards: ReturnType<typeof cardTools>,
    private readonly page: PageTools,
    private readonly mcp: McpToolset,
  ) {}

  /** Stores the step, runs its calls and adds them to `messages`; true when the turn is over. */
  async act(
    text: string,
    rawCalls: { name: string; arguments: string }[],
    stream: TextStream | undefined,
    messages: ChatCompletionMessageParam[],
  ): Promise<boolean> {
    const calls = rawCalls.map(parseCall);
    const cardCalls = calls.map((call) =>
      this.cards.has(call.name) && !call.error ? this.cards.read(call.name, call.input) : undefined,
    );
    const pageUse = (call: Call) => !call.error && this.page.has(call.name) && !this.page.problem(call.input);
    // The turn waits for one thing at a time: a card, else the step's first page tool call (the page answers it).
    const pageCall = cardCalls.some(isCard) ? undefined : calls.find(pageUse);
    // A payment card is its own record (`payment_gate`); a refused card or page call showed nothing, so it is not
    // stored (the model reads why in this turn); every other call is a `tool_use` block.
    const blocks = calls.flatMap((call, i): ToolUseBlock[] => {
      const card = cardCalls[i];
      if ((isCard(card) && card.name === PAYMENT_TOOL) || (card && 'error' in card)) return [];
      if (this.page.has(call.name) && !call.error && !pageUse(call)) return [];
      const block: ToolUseBlock = {
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: isCard(card) ? card.input : call.input,
      };
      return [call === pageCall ? { ...block, client: true } : block];
    });
    this.store(stream, blocks);
    if (!calls.length) return true;

    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((call, i) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments: rawCalls[i]!.arguments || '{}',
        },
      })),
    });
    // A card or a page tool waits for the visitor, suggested replies close the reply: each ends the turn.
    const ends = cardCalls.some(isCard) || pageCall !== undefined;
    for (const [i, call] of calls.entries()) {
      const result = await this.run(call, cardCalls[i], ends, call === pageCall);
      if (result === 'ended') return true;
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: result.content,
      });
      if (result.keep) {
        const error = result.isError ? { is_error: true } : {};
        this.carried.push({
          type: 'tool_result',
          tool_use_id: call.id,
          content: result.content,
          ...error,
        });
      }
    }
    return ends;
  }

  /** Ends the step's message: text with the calls after it; the last step's results ride along before. */
  private store(stream: TextStream | undefined, blocks: ContentBlock[]): void {
    const before = this.carried;
    this.carried = [];
    if (stream) stream.end({ before, after: blocks });
    else if (blocks.length) this.io.message([...before, ...blocks]);
  }

  private async run(
    call: Call,
    card: CardCall | { error: string } | undefined,
    ends: boolean,
    forPage: boolean,
  ): Promise<{ content: string; isError?: boolean; keep?: boolean } | 'ended'> {
    if (call.error) return { content: call.error, isError: true, keep: true };
    if (card && 'error' in card) return { content: card.error, isError: true };
    if (card) return this.showCard(card);
    if (forPage) return { content: PAGE_WAITING };
    if (this.page.has(call.name)) {
      const problem = this.page.problem(call.input);
      return problem ? { content: problem, isError: true } : { content: NOT_RUN, keep: true };
    }
    if (!this.mcp.has(call.name))
      return {
        content: `There is no tool named ${call.name}.`,
        isError: true,
        keep: true,
      };
    if (ends) return { content: NOT_RUN, keep: true };
    this.io.status('tool');
    const outcome = await this.mcp.call(call.name, call.input);
    if ('content' in outcome) return { ...outcome, keep: true };
    const server = outcome.needsCredential;
    const content = `${server.name} needs the visitor's credential; a card asking for it is shown.`;
    this.carried.push({
      type: 'tool_result',
      tool_use_id: call.id,
      content,
      is_error: true,
    });
    this.store(undefined, [connectorCard(server)]);
    return 'ended';
  }

  private async showCard(card: CardCall): Promise<{ content: string } | 'ended'> {
    if (card.name === PAYMENT_TOOL) {
      const { amount_cny, title, description } = card.input;
      this.io.paymentGate({
        amountCny: amount_cny,
        title,
        description,
        expiresInSeconds: PAYMENT_EXPIRES_IN_SECONDS,
      });
      return {
        content: 'The payment card is shown; the visitor has not paid yet.',
      };
    }
    if (card.name === RESERVED_TOOL_NAMES.delegate) {
      await this.io.delegate(card.input.agentId, card.input.task);
      return 'ended';
    }
    if (card.name === RESERVED_TOOL_NAMES.suggestReplies) return { content: SUGGESTED };
    if (card.name === RESERVED_TOOL_NAMES.handoff) {
      this.io.handoff(card.input.reason);
      return { content: HANDOFF_ASKED };
    }
    return { content: 'The card is shown; wait for the visitor to answer it.' };
  }
}

/** What the model reads of a call the step's card, page tool call or suggested replies left waiting. */
const NOT_RUN = 'Not run: the reply ended with a card, a page tool call or suggested replies; call it again after.';

const isCard = (card: CardCall | { error: string } | undefined): card is CardCall =>
  card !== undefined && !('error' in card);

function parseCall(raw: { name: string; arguments: string }): Call {
  const id = randomId('toolu', 12);
  try {
    const input: unknown = JSON.parse(raw.arguments || '{}');
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      return { id, name: raw.name, input: input as Record<string, unknown> };
    }
  } catch {
    // Falls through to the error the model reads.
  }
  return {
    id,
    name: raw.name,
    input: {},
    error: 'The arguments were not a JSON object.',
  };
}

/**
 * The card that asks the visitor for an MCP server's token: it names the server's host (`server`), and the
 * token is saved for that server alone (its workspace and URL), encrypted, as the connector's `token`.
 */
function connectorCard(server: { name: string; url: string; description?: string }): ToolUseBlock {
  const host = new URL(server.url).host;
  return {
    type: 'tool_use',
    id: randomId('toolu', 12),
    name: RESERVED_TOOL_NAMES.connectorSetup,
    input: {
      connectorTypeId: server.name,
      name: server.name,
      server: host,
      description: `${server.description ?? server.name} (${host}) needs your access token. It is stored encrypted and used only for your requests to ${host}.`,
      fields: [{ name: 'token', label: 'Access token', secret: true, required: true }],
    },
  };
}

function optionsOf(input: TurnInput): ModelOptions {
  const parsed = modelOptionsSchema.safeParse(input.agent.options ? JSON.parse(input.agent.options) : {});
  if (!parsed.success || !parsed.data.model || !parsed.data.base_url) {
    const cause = `agent ${input.agent.id} has no model set up: its options need a model and a base_url`;
    throw new ReplyFailure(TURN_FAILED.notSetUp, { cause });
  }
  return parsed.data;
}

function defaultPrompt(input: TurnInput): string {
  const about = input.agent.description ? ` ${input.agent.description}` : '';
  return `You are ${input.agent.name}, an assistant that answers visitors of a website in a chat.${about} Answer in markdown.`;
}

/**
 * The uploads of this service that the turn's message and its history link to, found before the messages
 * are built (the database is asked once per file).
 */
async function uploadsLinked(input: TurnInput, io: TurnIO): Promise<(url: string) => StoredFile | undefined> {
  const parts = [input.parts, ...input.history.map((entry) => (entry.raw.type === 'user' ? entry.raw.parts : []))];
  const urls = new Set(
    parts.flatMap((list) =>
      (list ?? []).flatMap((part) => {
        if (part.type === 'image_url') return [part.image_url.url];
        return part.type === 'file' ? [part.file.file_url] : [];
      }),
    ),
  );
  const found = new Map(await Promise.all([...urls].map(async (url) => [url, await io.readUpload(url)] as const)));
  return (url) => found.get(url);
}
