import type {
  AgentStatus,
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  ResultRawEvent,
  ResultSubtype,
} from '../../src/client/types.js';
import type { AppContext } from '../context.js';
import { randomId } from '../ids.js';
import { runtimeFor } from '../runtimes/index.js';
import type { TextStream, TurnInput, TurnIO } from '../runtimes/types.js';
import { type Conversation, insertRecord, markTurnEnded, type NewRecord } from '../store/conversations.js';
import { getConnectorCredentials } from '../store/credentials.js';
import { conversationDir, readUploadAt, storeUpload } from '../store/files.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/identity.js';
import { createPaymentOrder } from '../store/payments.js';

/** What the turn's user message says; the same for every agent of the turn. */
export type TurnMessage = Omit<TurnInput, 'agent' | 'workspaceAgents' | 'delegatedBy'>;

const EVENT_OF: Record<ChatRawEvent['type'], ChatStreamRecord['event']> = {
  user: 'message',
  assistant: 'message',
  assistant_delta: 'delta',
  agent_status: 'agent_status',
  attachment: 'attachment',
  payment_gate: 'payment_gate',
  payment_gate_resolution: 'payment_gate_resolution',
  result: 'result',
};

interface OpenStream {
  agentId: string;
  messageId: string;
  text: string;
}

/**
 * One running turn: runs each agent of the conversation in order (a coordinator), gives each a TurnIO,
 * and ends with exactly one `result` record, whether the agents finish, throw or are interrupted.
 */
export class ActiveTurn {
  private readonly controller = new AbortController();
  private readonly started = Date.now();
  private ended = false;
  private readonly open = new Set<OpenStream>();
  private readonly statuses = new Map<string, AgentStatus>();
  private readonly agentsRun: string[] = [];

  constructor(
    private readonly ctx: AppContext,
    readonly conversation: Conversation,
    readonly turnId: string,
    /** The first message id of each agent, announced by send as `msgId`. */
    private readonly firstMessageIds: Map<string, string>,
    private readonly onEnd: () => void,
  ) {}

  /** Runs the agents in turn; never throws. */
  async run(message: TurnMessage): Promise<void> {
    try {
      for (const agentId of this.conversation.agentIds) {
        if (this.ended) return;
        const agent = agentById(this.ctx.db, agentId);
        if (!agent) throw new Error(`agent ${agentId} no longer exists`);
        await this.runAgent(agent, message);
      }
      this.end('success');
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (!this.ended) this.ctx.log(`turn ${this.turnId} failed: ${error}`);
      this.end('error', error);
    }
  }

  /** Stops the turn at once: the text streamed so far is kept, then `result` `interrupted`. */
  interrupt(): void {
    this.end('interrupted');
  }

  /**
   * Ends the turn once: closes open messages with the text they hold, sets every agent idle, stores the
   * `result` and marks the turn ended in one transaction, then publishes. Later calls are no-ops.
   */
  end(subtype: ResultSubtype, error?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.abort();
    const pending: NewRecord[] = [];
    for (const stream of this.open) {
      if (stream.text) pending.push(this.agentRecord(stream.agentId, assistantOf(stream, [], [])));
    }
    this.open.clear();
    for (const [agentId, status] of this.statuses) {
      if (status !== 'idle') pending.push(this.agentRecord(agentId, { type: 'agent_status', agentId, status: 'idle' }));
    }
    const result: ResultRawEvent = {
      type: 'result',
      subtype,
      is_error: subtype === 'error',
      duration_ms: Date.now() - this.started,
      agentIds: this.agentsRun.length ? this.agentsRun : this.conversation.agentIds,
    };
    if (error !== undefined) result.error = error;
    pending.push({ sender: 'system', event: 'result', raw: result, turnId: this.turnId });
    try {
      const records = this.ctx.db.transaction(() => {
        // Another process may have ended it already (it found the turn abandoned at its start).
        if (!markTurnEnded(this.ctx.db, this.turnId, subtype)) return [];
        return pending.map((r) => insertRecord(this.ctx.db, this.conversation.id, r));
      })();
      for (const record of records) this.ctx.hub.publish(record);
    } catch (err) {
      // The database is gone (shutdown): the next start ends the turn (see endAbandonedTurns).
      this.ctx.log(`turn ${this.turnId} could not be ended: ${err instanceof Error ? err.message : err}`);
    }
    this.onEnd();
  }

  private async runAgent(agent: AgentRow, message: TurnMessage, delegatedBy?: AgentRow): Promise<void> {
    if (!this.agentsRun.includes(agent.id)) this.agentsRun.push(agent.id);
    const runtime = runtimeFor(agent.runtime);
    if (!runtime) throw new Error(`agent ${agent.name} has an unknown runtime "${agent.runtime}"`);
    const workspaceAgents = agentsOfWorkspace(this.ctx.db, agent.workspace_id);
    const io = this.ioFor(agent, message, workspaceAgents);
    io.status('thinking');
    await runtime.run({ ...message, agent, workspaceAgents, delegatedBy }, io);
    if (this.ended) return;
    for (const stream of this.open) {
      if (stream.agentId === agent.id) this.closeStream(stream, [], []);
    }
    io.status('idle');
  }

  private agentRecord(agentId: string, raw: ChatRawEvent): NewRecord {
    const agentName = agentById(this.ctx.db, agentId)?.name;
    return { sender: 'agent', event: EVENT_OF[raw.type], raw, agentId, agentName, turnId: this.turnId };
  }

  /** Stores and publishes one record; dropped once the turn has ended. */
  private emit(agentId: string, raw: ChatRawEvent): void {
    if (this.ended) return;
    const record = this.ctx.db.transaction(() =>
      insertRecord(this.ctx.db, this.conversation.id, this.agentRecord(agentId, raw)),
    )();
    this.ctx.hub.publish(record);
  }

  private setStatus(agentId: string, status: AgentStatus): void {
    if (this.ended || this.statuses.get(agentId) === status) return;
    this.statuses.set(agentId, status);
    this.emit(agentId, { type: 'agent_status', agentId, status });
  }

  private nextMessageId(agentId: string): string {
    const first = this.firstMessageIds.get(agentId);
    this.firstMessageIds.delete(agentId);
    return first ?? randomId('m');
  }

  private closeStream(stream: OpenStream, before: ContentBlock[], after: ContentBlock[]): void {
    if (!this.open.delete(stream)) return;
    this.emit(stream.agentId, assistantOf(stream, before, after));
  }

  private ioFor(agent: AgentRow, message: TurnMessage, workspaceAgents: AgentRow[]): TurnIO {
    const turn = this;
    const { ctx, conversation } = this;
    const agentId = agent.id;
    return {
      signal: this.controller.signal,
      status: (status) => turn.setStatus(agentId, status),
      streamText(): TextStream {
        const stream: OpenStream = { agentId, messageId: turn.nextMessageId(agentId), text: '' };
        turn.open.add(stream);
        return {
          messageId: stream.messageId,
          write(text) {
            if (turn.ended || !turn.open.has(stream) || !text) return;
            turn.setStatus(agentId, 'typing');
            stream.text += text;
            turn.emit(agentId, { type: 'assistant_delta', agentId, messageId: stream.messageId, text });
          },
          end(blocks = {}) {
            turn.closeStream(stream, blocks.before ?? [], blocks.after ?? []);
          },
        };
      },
      message(content) {
        const id = turn.nextMessageId(agentId);
        turn.emit(agentId, { type: 'assistant', agentId, message: { id, role: 'assistant', content } });
        return id;
      },
      attachment: (file) => turn.emit(agentId, { type: 'attachment', agentId, file }),
      paymentGate(request) {
        turn.controller.signal.throwIfAborted();
        const payment = createPaymentOrder(ctx, {
          conversationId: conversation.id,
          userId: message.userId,
          agentId,
          ...request,
          baseUrl: message.baseUrl,
        });
        turn.emit(agentId, { type: 'payment_gate', agentId, payment });
        return payment;
      },
      emit: (raw) => turn.emit(agentId, raw),
      async delegate(otherId, task) {
        turn.controller.signal.throwIfAborted();
        const other = workspaceAgents.find((a) => a.id === otherId);
        if (!other || other.id === agentId) throw new Error(`cannot delegate to agent ${otherId}`);
        await turn.runAgent(
          other,
          { ...message, text: task, parts: [], metadata: undefined, toolAction: false },
          agent,
        );
      },
      workspaceDir: () => conversationDir(ctx, conversation.id),
      upload: (file) => storeUpload(ctx, { ownerId: message.userId, ...file, baseUrl: message.baseUrl }),
      connectorCredentials: (typeId) => getConnectorCredentials(ctx, message.userId, typeId),
      readUpload: (url) => readUploadAt(ctx, url),
      log: (line) => ctx.log(`turn ${turn.turnId} agent ${agentId}: ${line}`),
    };
  }
}

function assistantOf(stream: OpenStream, before: ContentBlock[], after: ContentBlock[]): ChatRawEvent {
  const text: ContentBlock[] = stream.text ? [{ type: 'text', text: stream.text }] : [];
  return {
    type: 'assistant',
    agentId: stream.agentId,
    message: { id: stream.messageId, role: 'assistant', content: [...before, ...text, ...after] },
  };
}
