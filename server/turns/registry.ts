import type { InterruptResult, ResultSubtype } from '@svc/agent-sdk/protocol';
import type { Follower } from '../services/live-hub.js';
import { DELETED, type RecordLog } from '../services/record-log.js';
import type { Db } from '../store/db.js';
import { lastRecordId } from '../store/record-rows.js';
import { runningTurnOf } from '../store/turn-rows.js';

/** What the registry needs of a running turn (turns/active-turn.ts). */
export interface RunningTurnHandle {
  readonly conversationId: string;
  readonly turnId: string;
  /** Settles once the turn's `result` is stored. */
  interrupt(): Promise<void>;
  /** Settles once the turn's `result` is stored. */
  end(subtype: ResultSubtype, error?: string): Promise<void>;
}

/** The channel on which an instance asks the one running a conversation's turn to interrupt it. */
const INTERRUPT = 'svc_interrupt';
/** How long an interrupt waits for another instance to store the turn's end (a gone one's is ended within seconds). */
const REMOTE_END_MS = 10_000;
/** The error of the turns this instance ends when the others stop taking it for alive (Db.liveness). */
export const LOST_LIVENESS = 'the service lost its database connection during this reply';
/** The error of the turns running when this instance stops. */
export const STOPPED = 'the service stopped during this reply';

/**
 * The turns running in this process, by conversation id (for interrupt and shutdown). A turn running on
 * another instance is interrupted by asking that instance (Db.notify).
 */
export class TurnRegistry {
  private readonly running = new Map<string, RunningTurnHandle>();
  private readonly idle: (() => void)[] = [];
  private stopListening: (() => Promise<void>) | undefined;
  private readonly stopping = new AbortController();
  /** Aborted once the service stops: a turn whose end the database refuses stops trying to store it then. */
  readonly stopped: AbortSignal = this.stopping.signal;

  constructor(
    private readonly db: Db,
    private readonly records: RecordLog,
  ) {}

  /**
   * Starts hearing other instances' interrupts, and ends every running turn when this instance stops being
   * alive to the others (they end those turns, so this one must stop adding to them).
   */
  async listen(): Promise<void> {
    const interrupt = (conversationId: string) => void this.running.get(conversationId)?.interrupt();
    // A deleted conversation's turn stops as at an interrupt; its end finds no turn left to store (end-turn.ts).
    const stops = [await this.db.listen(INTERRUPT, interrupt), await this.db.listen(DELETED, interrupt)];
    this.stopListening = async () => {
      for (const stop of stops) await stop();
    };
    this.db.liveness.watch({ lost: () => void this.endAll(LOST_LIVENESS) });
  }

  /**
   * A turn stored as running on instance `instanceId` starts running here; it ends at once if this instance
   * is no longer that one, or not alive (its connection dropped while the turn was being stored).
   */
  add(turn: RunningTurnHandle, instanceId: string): void {
    this.running.set(turn.conversationId, turn);
    if (instanceId !== this.db.instanceId || !this.db.liveness.alive) void turn.end('error', LOST_LIVENESS);
  }

  remove(turn: RunningTurnHandle): void {
    if (this.running.get(turn.conversationId) === turn) this.running.delete(turn.conversationId);
    if (this.running.size === 0) for (const idle of this.idle.splice(0)) idle();
  }

  /** Turns running in this process now. */
  get size(): number {
    return this.running.size;
  }

  /** Settles once no turn runs in this process (a draining instance lets them finish). */
  whenIdle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Interrupts the conversation's running turn; answers once its end is stored, so a next send is taken. */
  async interrupt(conversationId: string): Promise<InterruptResult> {
    const turn = this.running.get(conversationId);
    if (turn) {
      await turn.interrupt();
      return { interrupted: true, turnId: turn.turnId };
    }
    const after = await lastRecordId(this.db, conversationId);
    const elsewhere = await runningTurnOf(this.db, conversationId);
    if (!elsewhere || elsewhere.instanceId === this.db.instanceId) {
      return { interrupted: false, reason: 'no reply is running' };
    }
    await this.untilEnded(conversationId, elsewhere.id, after, () => this.db.notify(INTERRUPT, conversationId));
    return { interrupted: true, turnId: elsewhere.id };
  }

  /** Runs `ask`, then waits (at most REMOTE_END_MS) for the turn's `result` after the cursor `after`. */
  private async untilEnded(conversationId: string, turnId: string, after: number, ask: () => Promise<void>) {
    let follower: Follower | undefined;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, REMOTE_END_MS);
      follower = this.records.follow(conversationId, after, {
        record: (record) => {
          if (record.raw.type === 'result' && record.turnId === turnId) resolve();
          return true;
        },
        close: resolve,
      });
      ask().catch(resolve);
    });
    clearTimeout(timer);
    follower?.stop();
  }

  /** Ends every running turn with an error (the service is stopping), so no reader waits forever. */
  async stopAll(): Promise<void> {
    this.stopping.abort();
    await this.stopListening?.();
    await this.endAll(STOPPED);
  }

  private async endAll(error: string): Promise<void> {
    await Promise.all([...this.running.values()].map((turn) => turn.end('error', error)));
  }
}
