import { setImmediate as nextTask } from 'node:timers/promises';
import type {
  AgentStatus,
  AssistantRawEvent,
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  ResultSubtype,
} from '@svc/agent-sdk/protocol';
import { errorText } from '../http/errors.js';
import { safeFilename } from '../http/file-names.js';
import { runtimeFor } from '../runtimes/all-runtimes.js';
import { tokensForDelegate } from '../runtimes/model/options.js';
import { nobodyThereRuntime } from '../runtimes/nobody-there.js';
import { ReplyFailure, type TextStream, TURN_FAILED, type TurnInput, type TurnIO } from '../runtimes/types.js';
import { recordClientToolCalls } from '../services/client-tool-calls.js';
import { connectorCredentials, serverCredentials } from '../services/connector-credentials.js';
import type { AppContext } from '../services/context.js';
import { conversationDir } from '../services/conversation-files.js';
import { LIMITS } from '../services/limits.js';
import type { AppendRecords } from '../services/record-log.js';
import { readUploadAt, storeUpload } from '../services/uploads.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/agent-rows.js';
import { lockConversation, type StoredConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { randomId } from '../store/ids.js';
import type { NewRecord } from '../store/record-rows.js';
import { endTurnSurely } from './end-turn.js';
import type { RunningTurnHandle } from './registry.js';

/** What the turn's user message says; the same for every agent of the turn. */
export type TurnMessage = Omit<TurnInput, 'agent' | 'workspaceAgents' | 'delegatedBy' | 'operators'>;

const EVENT_OF: Record<ChatRawEvent['type'], ChatStreamRecord['event']> = {
  user: 'message',
  assistant: 'message',
  assistant_delta: 'delta',
  agent_status: 'agent_status',
  attachment: 'attachment',
  payment_gate: 'payment_gate',
  payment_gate_resolution: 'payment_gate_resolution',
  result: 'result',
  handoff_requested: 'handoff',
  operator_joined: 'handoff',
  operator_message: 'message',
  operator_left: 'handoff',
  handoff_unanswered: 'handoff',
};

interface OpenStream {
  agentId: string;
  messageId: string;
  text: string;
}

/**
 * A write of the turn: a record, and what is stored before it in the same transaction (`with`: a payment order,
 * the page's tool calls, a handoff with its own record).
 */
interface TurnWrite {
  record?: NewRecord;
  with?: (append: AppendRecords, tx: Db) => Promise<void>;
}

/**
 * One running turn: runs each agent of the conversation in order (a coordinator), gives each a TurnIO
 * whose every call queues a record, and ends with exactly one `result` record (endTurn), whether the agents
 * finish, throw or are interrupted. The runtime never waits for the database: its records are stored in
 * the order they were made, those made at once or while a write is under way together in the next write, and
 * the queue is bounded by LIMITS.turnBytes.
 */
export class ActiveTurn implements RunningTurnHandle {
  private readonly controller = new AbortController();
  private ended = false;
  private readonly open = new Set<OpenStream>();
  private readonly statuses = new Map<string, AgentStatus>();
  /** What the turn's records take so far, as JSON (bounded by LIMITS.turnBytes). */
  private bytes = 0;
  /** The names of the agents that speak in this turn, by id (stored with each of their records). */
  private readonly names = new Map<string, string>();
  /** Writes waiting for the one under way (`writing`). */
  private queued: TurnWrite[] = [];
  private writing: Promise<void> | undefined;
  /** Settles once the turn has ended and its `result` is stored (or could not be). */
  private finished: Promise<void> | undefined;
  /** The names of the tools the page gave the chat for this turn: the only calls marked the page's. */
  private pageTools = new Set<string>();

  constructor(
    private readonly ctx: AppContext,
    readonly conversation: StoredConversation,
    readonly turnId: string,
    /** The first message id of each agent, announced by send as `msgId`. */
    private readonly firstMessageIds: Map<string, string>,
  ) {}

  get conversationId(): string {
    return this.conversation.id;
  }

  /**
   * Runs the agents in turn; never throws. `read` gives the turn's message (its history is read from the
   * database then, outside the send's transaction): if even that fails, the turn ends with an error.
   */
  async run(read: () => Promise<TurnMessage>): Promise<void> {
    try {
      const message = await read();
      this.pageTools = new Set(message.clientTools.map((tool) => tool.name));
      for (const agentId of this.conversation.agentIds) {
        if (this.ended) return;
        const agent = await agentById(this.ctx.db, agentId);
        if (!agent) throw new ReplyFailure(TURN_FAILED.agentGone, { cause: `agent ${agentId} no longer exists` });
        await this.runAgent(agent, message);
      }
      await this.end('success');
    } catch (err) {
      await this.end('error', this.failureOf(err));
    }
  }

  /**
   * The sentence the visitor reads of what ended the turn: a ReplyFailure's own, else TURN_FAILED.unexpected.
   * The log gets the whole story (an error that is not a ReplyFailure, with its stack, at `error`).
   */
  private failureOf(err: unknown): string {
    const sentence = err instanceof ReplyFailure ? err.message : TURN_FAILED.unexpected;
    // A turn already ended (interrupted, stopped) threw because it was: nothing failed.
    if (this.ended) return sentence;
    if (err instanceof ReplyFailure) {
      const cause = err.cause === undefined ? '' : ` (${errorText(err.cause)})`;
      this.ctx.log(`turn ${this.turnId} failed: ${sentence}${cause}`);
    } else this.ctx.logError(`turn ${this.turnId} failed: ${errorText(err)}`);
    return sentence;
  }

  /** Stops the turn at once: the text streamed so far is kept, then `result` `interrupted` (stored when it settles). */
  interrupt(): Promise<void> {
    return this.end('interrupted');
  }

  /**
   * Ends the turn once (see endTurn), after the writes already queued; the runtime's signal is aborted and
   * later writes are dropped. Settles once the `result` is stored.
   */
  end(subtype: ResultSubtype, error?: string): Promise<void> {
    if (this.finished) return this.finished;
    this.ended = true;
    this.controller.abort();
    this.open.clear();
    this.finished = this.drained()
      .then(() => endTurnSurely(this.ctx, { id: this.turnId, conversationId: this.conversationId }, subtype, error))
      .finally(() => this.ctx.turns.remove(this));
    return this.finished;
  }

  /** Queues a write after the turn's earlier ones. */
  private enqueue(write: TurnWrite): void {
    this.queued.push(write);
    this.writing ??= this.flush();
  }

  /**
   * Stores what is queued, each batch as one write: its records alone in one call (RecordLog.append), or in a
   * transaction with what is stored beside them. The first batch waits a turn of the event loop for the records
   * a runtime makes at once (a whole short reply and its agent's status), so they go in one write. A write that
   * fails ends the turn with its error.
   */
  private async flush(): Promise<void> {
    await nextTask();
    while (this.queued.length) {
      const batch = this.queued.splice(0);
      const id = this.conversationId;
      try {
        if (batch.every((write) => !write.with)) {
          await this.ctx.records.append(id, ...batch.flatMap((write) => write.record ?? []));
        } else {
          await this.ctx.records.write(async (append, tx) => {
            await lockConversation(tx, id);
            // Records go in as few calls as their order allows: those before a `with` first.
            const records: NewRecord[] = [];
            for (const write of batch) {
              if (write.with) {
                await append(id, ...records.splice(0));
                await write.with(append, tx);
              }
              if (write.record) records.push(write.record);
            }
            await append(id, ...records);
          });
        }
      } catch (err) {
        this.ctx.log(`turn ${this.turnId}: a record could not be stored: ${errorText(err)}`);
        this.queued = [];
        void this.end('error', TURN_FAILED.notStored);
      }
    }
    this.writing = undefined;
  }

  /** Settles once every queued write is stored (or failed). */
  private async drained(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async runAgent(agent: AgentRow, message: TurnMessage, delegatedBy?: AgentRow): Promise<void> {
    // Nobody took the handoff: the agent says so in the same words whatever its runtime.
    const runtime = message.unanswered ? nobodyThereRuntime : runtimeFor(agent.runtime);
    if (!runtime) {
      throw new ReplyFailure(TURN_FAILED.notSetUp, {
        cause: `agent ${agent.id} has an unknown runtime "${agent.runtime}"`,
      });
    }
    const workspaceAgents = await agentsOfWorkspace(this.ctx.db, agent.workspace_id);
    const operators = await this.ctx.handoffs.enabled(this.ctx.db, agent.workspace_id);
    this.names.set(agent.id, agent.name);
    const io = this.ioFor(agent, message, workspaceAgents);
    io.status('thinking');
    await runtime.run({ ...message, agent, workspaceAgents, delegatedBy, operators }, io);
    if (this.ended) return;
    for (const stream of this.open) {
      if (stream.agentId === agent.id) this.closeStream(stream, [], []);
    }
    io.status('idle');
  }

  private agentRecord(agentId: string, raw: ChatRawEvent): NewRecord {
    const agentName = this.names.get(agentId);
    return { sender: 'agent', event: EVENT_OF[raw.type], raw, agentId, agentName, turnId: this.turnId };
  }

  /**
   * Queues one record (after `before`, in its transaction); dropped once the turn has ended. A reply too
   * long ends the turn instead.
   */
  private emit(agentId: string, raw: ChatRawEvent, before?: (tx: Db) => Promise<void>): void {
    if (this.ended) return;
    // A runtime names its files as it likes: the visitor sees and saves them by the upload name rule.
    if (raw.type === 'attachment') raw = { ...raw, file: { ...raw.file, name: safeFilename(raw.file.name) } };
    if (raw.type === 'assistant') raw = this.pageCallsOnly(raw);
    this.bytes += Buffer.byteLength(JSON.stringify(raw));
    if (this.bytes > LIMITS.turnBytes) {
      void this.end('error', TURN_FAILED.tooLong(LIMITS.turnBytes));
      return;
    }
    const calls =
      raw.type === 'assistant'
        ? raw.message.content.flatMap((block) => (block.type === 'tool_use' && block.client ? [block.id] : []))
        : [];
    const record = this.agentRecord(agentId, raw);
    const beside = async (_: AppendRecords, tx: Db) => {
      await before?.(tx);
      if (calls.length) await recordClientToolCalls(tx, this.conversationId, this.turnId, calls);
    };
    this.enqueue(before || calls.length ? { record, with: beside } : { record });
  }

  /**
   * The message as stored: a call marked the page's (`client: true`) stays so only when the page gave the chat a
   * tool of that name in this turn, so that no runtime can have the page run anything else.
   */
  private pageCallsOnly(raw: AssistantRawEvent): AssistantRawEvent {
    const foreign = (block: ContentBlock) =>
      block.type === 'tool_use' && block.client && !this.pageTools.has(block.name);
    if (!raw.message.content.some(foreign)) return raw;
    this.ctx.log(`turn ${this.turnId}: a call of a tool the page did not give this turn is not marked the page's`);
    const content = raw.message.content.map((block) => {
      if (!foreign(block) || block.type !== 'tool_use') return block;
      const { client: _, ...plain } = block;
      return plain;
    });
    return { ...raw, message: { ...raw.message, content } };
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
        const { order, payment } = ctx.payments.order({
          conversationId: conversation.id,
          userId: message.userId,
          agentId,
          ...request,
          baseUrl: message.baseUrl,
        });
        turn.emit(agentId, { type: 'payment_gate', agentId, payment }, (tx) => ctx.payments.store(tx, order));
        return payment;
      },
      emit: (raw) => turn.emit(agentId, raw),
      handoff(reason) {
        turn.controller.signal.throwIfAborted();
        turn.enqueue({
          with: async (append, tx) => {
            await ctx.handoffs.ask(append, tx, conversation, { by: 'agent', reason, agentId, turnId: turn.turnId });
          },
        });
      },
      async delegate(otherId, task) {
        turn.controller.signal.throwIfAborted();
        const other = workspaceAgents.find((a) => a.id === otherId);
        if (!other || other.id === agentId) {
          throw new ReplyFailure(TURN_FAILED.handover, {
            cause: `agent ${agentId} cannot delegate to agent ${otherId}`,
          });
        }
        await turn.runAgent(
          other,
          {
            ...message,
            text: task,
            parts: [],
            metadata: undefined,
            toolAction: false,
            payment: undefined,
            // The page's tools are for the agents it spoke to: a delegated agent answers with its own.
            clientTools: [],
            mcpTokens: tokensForDelegate(message.mcpTokens, agent, other),
          },
          agent,
        );
      },
      workspaceDir: () => conversationDir(ctx, conversation.id),
      upload: (file) => storeUpload(ctx, { ownerId: message.userId, ...file, baseUrl: message.baseUrl }),
      connectorCredentials: (typeId) => connectorCredentials(ctx, message.userId, typeId),
      serverCredentials: (url) => serverCredentials(ctx, message.userId, agent.workspace_id, url),
      readUpload: (url) => readUploadAt(ctx, url),
      log: (line) => ctx.log(`turn ${turn.turnId} agent ${agentId}: ${line}`),
      model: {
        answered: (seconds) => ctx.metrics.modelLatency.observe(seconds),
        failed: (kind) => ctx.metrics.modelFailures.inc({ kind }),
      },
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
