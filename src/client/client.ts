import type { AgentTurn } from '../protocol/conversation-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';
import { ChatClient } from './chat.js';
import type { SvcClientConfig } from './config.js';
import type { Conversation, ConversationOptions } from './conversation.js';
import { FilesClient } from './files.js';
import { HttpClient } from './http.js';
import { PaymentsClient } from './payments.js';
import { notImplemented } from './reserved.js';
import { TrainingChat } from './training.js';
import { type MessageOptions, toSendRequest } from './turn.js';
import { WorkspaceHandle, WorkspacesClient } from './workspaces.js';

/**
 * The whole client (spec 4.4). Its parts (`ChatClient`, `FilesClient`, `WorkspacesClient`, …) also work
 * on their own, so a bundle that needs only chat carries no workspace administration code.
 */
export class SvcClient {
  readonly http: HttpClient;
  readonly chat: ChatClient;
  readonly files: FilesClient;
  readonly payments: PaymentsClient;
  readonly workspaces: WorkspacesClient;

  constructor(config: SvcClientConfig = {}) {
    this.http = new HttpClient(config);
    this.chat = new ChatClient(this.http);
    this.files = new FilesClient(this.http);
    this.payments = new PaymentsClient(this.http);
    this.workspaces = new WorkspacesClient(this.http);
  }

  /** Sends a message and waits for the end of the turn. */
  async sendMessage(message: string, opts: MessageOptions = {}): Promise<AgentTurn> {
    const { request, wait } = toSendRequest(message, opts, this.http.config.agentId);
    return this.chat.sendMessage(request, wait);
  }

  /** Sends a message and yields the records of the reply through the end of the turn. */
  runTurn(message: string, opts: MessageOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    const { request, wait } = toSendRequest(message, opts, this.http.config.agentId);
    return this.chat.runTurn(request, wait);
  }

  /** A handle that remembers the conversation id. */
  conversation(opts: ConversationOptions = {}): Conversation {
    return this.chat.conversation(opts);
  }

  /** Training mode with `agentId`, or the config's `agentId`. */
  training(agentId?: string): TrainingChat {
    return new TrainingChat(this.http, agentId ?? this.http.config.agentId ?? '');
  }

  /** The workspace methods bound to `slug`. */
  workspace(slug: string): WorkspaceHandle {
    return new WorkspaceHandle(slug, this.workspaces);
  }

  /** Reserved. */
  listSessions(..._args: unknown[]): never {
    return notImplemented('listSessions()');
  }

  /** Reserved. */
  getSession(..._args: unknown[]): never {
    return notImplemented('getSession()');
  }

  /** Reserved. */
  deleteSession(..._args: unknown[]): never {
    return notImplemented('deleteSession()');
  }
}
