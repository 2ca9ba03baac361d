import { connectorSetupMetadata } from '../protocol/card-answers.js';
import { clientToolAnswerMetadata } from '../protocol/client-tools.js';
import type {
  AgentTurn,
  ClientToolAnswer,
  ClientToolDeclaration,
  InterruptResult,
  SendResult,
} from '../protocol/conversation-types.js';
import type { HandoffResult } from '../protocol/handoff-types.js';
import type { ChatStreamRecord, ConnectorSetupRequest } from '../protocol/record-types.js';
import type { ChatClient } from './chat.js';
import type { RequestOptions } from './config.js';
import { SvcSdkError } from './errors.js';
import { idempotencyKey } from './idempotency.js';
import { sendAnswer } from './page-tools.js';
import type { TurnReadOptions } from './record-stream.js';
import { collectTurn, type MessageOptions, toSendRequest } from './turn.js';

export interface ConversationOptions {
  /** Continue this conversation. Without it the first message starts a new one. */
  conversationId?: string;
  /** Agents of the new conversation. Default `[config.agentId]`. */
  targetAgentIds?: string[];
  /** Tokens sent with every message of this conversation (over the client's, under a message's own). */
  mcpTokens?: Record<string, string>;
  /**
   * The tools the page offers the model with every message of this conversation, unless a message gives its own
   * `clientTools` (docs/client.md "Tools the page gives the chat"); answer a call with `answerClientTool`.
   */
  clientTools?: ClientToolDeclaration[];
}

export interface ConnectorSetupOptions extends MessageOptions {
  /** Send a message so the agent retries with the new credentials. Default true. */
  notify?: boolean;
}

/**
 * A conversation handle: `id` is set by the first send (or given), and every later message continues it.
 * A handle without an id always starts a new conversation, never the caller's most recent one.
 */
export class Conversation {
  #id: string | undefined;

  constructor(
    readonly chat: ChatClient,
    readonly options: ConversationOptions = {},
  ) {
    this.#id = options.conversationId;
  }

  /** The conversation id, once known. */
  get id(): string | undefined {
    return this.#id;
  }

  /** Sends and waits for the end of the turn. */
  async send(message: string, opts: MessageOptions = {}): Promise<AgentTurn> {
    const { sent, wait } = await this.#send(message, opts);
    return collectTurn(sent.conversationId, this.chat.followTurn(sent, wait));
  }

  /** Sends and yields the records of the reply through the end of the turn. */
  async *stream(message: string, opts: MessageOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    const { sent, wait } = await this.#send(message, opts);
    yield* this.chat.followTurn(sent, wait);
  }

  /**
   * Asks the last message again and waits for the new reply, which replaces the last one (`chat.regenerate`).
   * Before the first message there is nothing to ask again (an `SvcSdkError`).
   */
  async regenerate(opts: Pick<MessageOptions, 'mcpTokens' | 'clientTools'> & TurnReadOptions = {}): Promise<AgentTurn> {
    const { mcpTokens, clientTools, ...wait } = opts;
    const sent = await this.chat.regenerate(
      this.#requireId(),
      { mcpTokens: { ...this.options.mcpTokens, ...mcpTokens }, ...this.#tools(clientTools) },
      { signal: wait.signal },
    );
    return collectTurn(sent.conversationId, this.chat.followTurn(sent, wait));
  }

  /** Replaces the visitor's last message with `message` and waits for the new reply (`chat.edit`). */
  async edit(
    message: string,
    opts: Pick<MessageOptions, 'mcpTokens' | 'parts' | 'clientTools'> & TurnReadOptions = {},
  ): Promise<AgentTurn> {
    const { mcpTokens, parts, clientTools, ...wait } = opts;
    const sent = await this.chat.edit(
      this.#requireId(),
      {
        message,
        ...(parts ? { parts } : {}),
        mcpTokens: { ...this.options.mcpTokens, ...mcpTokens },
        ...this.#tools(clientTools),
      },
      { signal: wait.signal },
    );
    return collectTurn(sent.conversationId, this.chat.followTurn(sent, wait));
  }

  /** Stops the running reply. Before the first message there is nothing to stop. */
  async interrupt(opts: RequestOptions = {}): Promise<InterruptResult> {
    if (!this.#id) return { interrupted: false, reason: 'no reply is running' };
    return this.chat.interrupt(this.#id, opts);
  }

  /** Asks for a person of the site's staff (`chat.requestHandoff`). Before the first message there is no one to ask. */
  async requestHandoff(reason?: string, opts: RequestOptions = {}): Promise<HandoffResult> {
    if (!this.#id) throw new SvcSdkError('The conversation has no message yet: send one before asking for a person.');
    return this.chat.requestHandoff(this.#id, reason ? { reason } : {}, opts);
  }

  /**
   * Saves the user's answer to a connector-setup card, then (unless `notify: false`) tells the agent
   * with a card-action message so it retries, and returns that turn.
   */
  async submitConnectorSetup(
    setup: ConnectorSetupRequest,
    values: Record<string, string>,
    opts: ConnectorSetupOptions = {},
  ): Promise<AgentTurn | undefined> {
    const { notify = true, ...messageOptions } = opts;
    await this.chat.submitConnectorCredentials(setup.connectorTypeId, values, {
      signal: opts.signal,
      ...(setup.server && setup.agentId ? { agentId: setup.agentId } : {}),
    });
    if (!notify) return undefined;
    return this.send(`Connected ${setup.name}.`, {
      ...messageOptions,
      toolAction: true,
      metadata: connectorSetupMetadata(setup.connectorTypeId),
    });
  }

  /**
   * Answers the call `toolUseId` of a page tool (a `tool_use` block with `client: true`, read with
   * `extractClientToolCalls`) with what the tool returned (`{ output }`, JSON) or why it could not (`{ error }`),
   * and waits for the reply that follows, which reads the answer. Sent under one `Idempotency-Key`, again while the
   * service is busy or away (503, 429, no connection: about a minute, `sendAnswer`); to retry an answer whose send
   * failed after that, pass the same `idempotencyKey` (a call is answered once; another answer is a 409).
   */
  async answerClientTool(
    toolUseId: string,
    answer: ClientToolAnswer,
    opts: MessageOptions & { idempotencyKey?: string } = {},
  ): Promise<AgentTurn> {
    const key = opts.idempotencyKey ?? idempotencyKey();
    const { sent, wait } = await sendAnswer(
      () =>
        this.#send('', {
          ...opts,
          idempotencyKey: key,
          toolAction: true,
          metadata: clientToolAnswerMetadata(toolUseId, answer),
        }),
      opts.signal,
    );
    return collectTurn(sent.conversationId, this.chat.followTurn(sent, wait));
  }

  /** The page's tools of a request: its own, else the conversation's (none: left out of the JSON body). */
  #tools(own: ClientToolDeclaration[] | undefined): { clientTools?: ClientToolDeclaration[] } {
    return { clientTools: own ?? this.options.clientTools };
  }

  #requireId(): string {
    if (!this.#id) throw new SvcSdkError('The conversation has no message yet: there is nothing to ask again.');
    return this.#id;
  }

  async #send(
    message: string,
    opts: MessageOptions & { idempotencyKey?: string },
  ): Promise<{ sent: SendResult; wait: TurnReadOptions }> {
    const mcpTokens = { ...this.options.mcpTokens, ...opts.mcpTokens };
    const { idempotencyKey, ...rest } = opts;
    const own = { ...rest, mcpTokens, ...this.#tools(opts.clientTools) };
    const fields: MessageOptions = this.#id
      ? { ...own, conversationId: this.#id }
      : { targetAgentIds: this.options.targetAgentIds, newConversation: true, ...own };
    const { request, wait } = toSendRequest(message, fields, this.chat.http.config.agentId);
    const sent = await this.chat.send(request, { signal: wait.signal, idempotencyKey });
    this.#id = sent.conversationId;
    return { sent, wait };
  }
}
