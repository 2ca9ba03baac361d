import type {
  AgentPrompts,
  AgentTurn,
  ChatStreamRecord,
  ConnectorCredentialsResult,
  ConversationList,
  ConversationSummary,
  Feedback,
  FeedbackRequest,
  HandoffRequest,
  HandoffResult,
  HistoryOptions,
  HistoryResult,
  InterruptResult,
  MessageAudioResult,
  MessagesResult,
  ReplaceRequest,
  SendRequest,
  SendResult,
} from '../protocol/types.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { Conversation, type ConversationOptions } from './conversation.js';
import { SvcSdkError } from './errors.js';
import { type HttpClient, httpOf, path } from './http.js';
import { type IdempotencyOptions, sendCall } from './idempotency.js';
import { type RecordStreamOptions, readTurn, streamRecords, type TurnReadOptions } from './record-stream.js';
import { collectTurn, mergeMcpTokens } from './turn.js';

export interface ResumeTurnOptions extends TurnReadOptions {
  /** Read after this record: the `userEventId` of a send, or the id of the last record already seen. */
  lastEventId: string;
}

/** The protocol-level chat client (spec 4.2): one method per conversation route, plus turn helpers. */
export class ChatClient {
  readonly http: HttpClient;

  constructor(http: HttpClient | SvcClientConfig = {}) {
    this.http = httpOf(http);
  }

  /**
   * Sends a message and returns at once; the reply is read from the stream after `userEventId`. Sent under an
   * `Idempotency-Key` (`opts.idempotencyKey`, else a new one) and never repeated by the client itself. To retry
   * a message that failed (its answer may have been lost after the service stored it), send it again with the
   * key of its first try: the service answers with the first result instead of storing it twice. The
   * client's `mcpTokens` are merged in (the request's win).
   */
  async send(req: SendRequest, opts: IdempotencyOptions = {}): Promise<SendResult> {
    const mcpTokens = await mergeMcpTokens(this.http.config.mcpTokens, req.mcpTokens);
    const body: SendRequest = { ...req, mcpTokens };
    return this.http.json({ ...sendCall(opts), method: 'POST', path: '/conversations/send', body });
  }

  /**
   * Our extension: asks the conversation's last message again in a new turn, in place of its last turn (the
   * new user record's `raw.replaces` names it); read the reply after `userEventId`, as after `send`. Sent under
   * an `Idempotency-Key` like `send`. 409 while a reply runs or before the first message.
   */
  async regenerate(
    conversationId: string,
    req: Omit<ReplaceRequest, 'message' | 'parts'> = {},
    opts: IdempotencyOptions = {},
  ): Promise<SendResult> {
    const mcpTokens = await mergeMcpTokens(this.http.config.mcpTokens, req.mcpTokens);
    return this.http.json({
      ...sendCall(opts),
      method: 'POST',
      path: path`/conversations/${conversationId}/regenerate`,
      body: { mcpTokens, clientTools: req.clientTools },
    });
  }

  /**
   * Our extension: replaces the visitor's last message with `req.message` (and `parts`) and asks it in a new
   * turn, in place of the last one, as `regenerate` does. A card answer cannot be edited (409).
   */
  async edit(
    conversationId: string,
    req: ReplaceRequest & { message: string },
    opts: IdempotencyOptions = {},
  ): Promise<SendResult> {
    const mcpTokens = await mergeMcpTokens(this.http.config.mcpTokens, req.mcpTokens);
    return this.http.json({
      ...sendCall(opts),
      method: 'POST',
      path: path`/conversations/${conversationId}/edit`,
      body: { ...req, mcpTokens },
    });
  }

  /**
   * Our extension: the caller's 👍 (`up`) or 👎 (`down`) on an agent's reply (`messageId`: its `raw.message.id`),
   * with an optional reason; a second call changes it. The workspace's owner reads it (`workspaces.listFeedback`).
   */
  async setFeedback(
    conversationId: string,
    messageId: string,
    feedback: FeedbackRequest,
    opts: RequestOptions = {},
  ): Promise<Feedback> {
    return this.http.json({
      ...opts,
      method: 'PUT',
      path: path`/conversations/${conversationId}/messages/${messageId}/feedback`,
      body: feedback,
      idempotent: true,
    });
  }

  /** Our extension: the prompts a chat offers before its first message with `agentId` (agent settings). */
  async agentPrompts(agentId: string, opts: RequestOptions = {}): Promise<AgentPrompts> {
    return this.http.json({ ...opts, method: 'GET', path: path`/agents/${agentId}/prompts` });
  }

  /** Our extension: the caller's feedback on the replies of a conversation, oldest first. */
  async feedback(conversationId: string, opts: RequestOptions = {}): Promise<{ feedback: Feedback[] }> {
    return this.http.json({ ...opts, method: 'GET', path: path`/conversations/${conversationId}/feedback` });
  }

  /**
   * The conversation's record stream, long-lived: it reconnects by itself (unless `reconnect: false`),
   * resuming after the last record it yielded. Without `lastEventId` it starts at the live tail.
   */
  async *stream(
    conversationId: string,
    opts: RecordStreamOptions = {},
  ): AsyncGenerator<ChatStreamRecord, void, undefined> {
    yield* streamRecords(this.http, path`/conversations/${conversationId}/stream`, opts);
  }

  /** Reads from `lastEventId` through the `result` record that ends the turn, then stops. */
  async *resumeTurn(
    conversationId: string,
    opts: ResumeTurnOptions,
  ): AsyncGenerator<ChatStreamRecord, void, undefined> {
    yield* readTurn((signal) => this.stream(conversationId, { lastEventId: opts.lastEventId, signal }), opts);
  }

  /** The reply to a message already sent: its records up to the end of the turn. */
  async *followTurn(sent: SendResult, opts: TurnReadOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    const lastEventId = sent.userEventId ?? sent.userMessage?.id;
    if (!lastEventId) throw new SvcSdkError('The send result has no userEventId: the reply cannot be followed.');
    yield* this.resumeTurn(sent.conversationId, { ...opts, lastEventId });
  }

  /** Sends, then yields the records of the reply through the end of the turn. */
  async *runTurn(req: SendRequest, opts: TurnReadOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    yield* this.followTurn(await this.send(req, { signal: opts.signal }), opts);
  }

  /** Sends and waits for the end of the turn. A failed turn is returned too: check `result.subtype`. */
  async sendMessage(req: SendRequest, opts: TurnReadOptions = {}): Promise<AgentTurn> {
    const sent = await this.send(req, { signal: opts.signal });
    return collectTurn(sent.conversationId, this.followTurn(sent, opts));
  }

  /** The whole history: every record except deltas and status changes, oldest first. */
  async messages(
    conversationId: string,
    opts: RequestOptions & { includeThinking?: boolean } = {},
  ): Promise<MessagesResult> {
    const { includeThinking, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'GET',
      path: path`/conversations/${conversationId}/messages`,
      query: { includeThinking },
    });
  }

  /** One page of history before the cursor `before` (default: the end), oldest first, and `hasMore`. */
  async history(conversationId: string, opts: HistoryOptions & RequestOptions = {}): Promise<HistoryResult> {
    const { before, turns, maxEntries, includeThinking, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'GET',
      path: path`/conversations/${conversationId}/history`,
      query: { before, turns, maxEntries, includeThinking },
    });
  }

  /** Stops the running reply; its `result` record (`interrupted`) follows in the stream. */
  async interrupt(conversationId: string, opts: RequestOptions = {}): Promise<InterruptResult> {
    return this.http.json({ ...opts, method: 'POST', path: path`/conversations/${conversationId}/interrupt` });
  }

  /**
   * Asks for a person of the site's staff ("Talk to a person", docs/protocol.md "A person in the conversation");
   * asking again while one is asked for or holds the conversation changes nothing. `PermissionDeniedError` (403) where
   * the workspace has no operators.
   */
  async requestHandoff(
    conversationId: string,
    body: HandoffRequest = {},
    opts: RequestOptions = {},
  ): Promise<HandoffResult> {
    return this.http.json({ ...opts, method: 'POST', path: path`/conversations/${conversationId}/handoff`, body });
  }

  /** A reply read aloud, as base64 audio. Retried when safe: speech is cached per message. */
  async messageAudio(
    agentId: string,
    messageId: string,
    conversationId: string,
    opts: RequestOptions = {},
  ): Promise<MessageAudioResult> {
    return this.http.json({
      ...opts,
      method: 'POST',
      path: path`/agents/${agentId}/messages/${messageId}/audio`,
      body: { conversationId },
      idempotent: true,
    });
  }

  /**
   * Stores the caller's own credentials for a connector type; values are never returned. With `agentId`
   * (a server's card: `ConnectorSetupRequest.agentId`) they are saved for that agent's MCP server named
   * `connectorTypeId`, bound to its workspace and URL, and used for no other server.
   */
  async submitConnectorCredentials(
    connectorTypeId: string,
    credentials: Record<string, string>,
    opts: RequestOptions & { agentId?: string } = {},
  ): Promise<ConnectorCredentialsResult> {
    const { agentId, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'PUT',
      path: path`/profile/credentials/${connectorTypeId}`,
      body: agentId === undefined ? { credentials } : { credentials, agentId },
    });
  }

  /**
   * The caller's conversations, the one with the newest record first, a page at a time (our extension:
   * docs/protocol.md "Conversation list"): pass the `nextCursor` of a page as `cursor` for the next one.
   */
  async listConversations(opts: RequestOptions & { cursor?: string; limit?: number } = {}): Promise<ConversationList> {
    const { cursor, limit, ...request } = opts;
    return this.http.json({ ...request, method: 'GET', path: '/conversations', query: { cursor, limit } });
  }

  /** Sets a conversation's title (1 to 200 characters); resolves with it as the list shows it. */
  async renameConversation(
    conversationId: string,
    title: string,
    opts: RequestOptions = {},
  ): Promise<ConversationSummary> {
    return this.http.json({ ...opts, method: 'PATCH', path: path`/conversations/${conversationId}`, body: { title } });
  }

  /**
   * Deletes a conversation with its records and files (409 `ConflictError` while a reply runs: interrupt it
   * first). Not retried by the client: a repeat of one that went through answers 404.
   */
  async deleteConversation(conversationId: string, opts: RequestOptions = {}): Promise<void> {
    await this.http.json({
      ...opts,
      method: 'DELETE',
      path: path`/conversations/${conversationId}`,
      idempotent: false,
    });
  }

  /** A handle that remembers the conversation id once the first message created it. */
  conversation(opts: ConversationOptions = {}): Conversation {
    return new Conversation(this, opts);
  }
}
