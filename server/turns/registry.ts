import type { InterruptResult, ResultSubtype } from '../../src/client/types.js';
import type { Db } from '../store/db.js';
import { runningTurnOf } from '../store/turns.js';

/** What the registry needs of a running turn (turns/active-turn.ts). */
export interface RunningTurnHandle {
  readonly conversationId: string;
  readonly turnId: string;
  interrupt(): void;
  /** Settles once the turn's `result` is stored. */
  end(subtype: ResultSubtype, error?: string): Promise<void>;
}

/** The channel on which an instance asks the one running a conversation's turn to interrupt it. */
const INTERRUPT = 'svc_interrupt';

/**
 * The turns running in this process, by conversation id (for interrupt and shutdown). A turn running on
 * another instance is interrupted by asking that instance (Db.notify).
 */
export class TurnRegistry {
  private readonly running = new Map<string, RunningTurnHandle>();
  private stopListening: (() => Promise<void>) | undefined;

  constructor(private readonly db: Db) {}

  /** Starts hearing other instances' interrupts. */
  async listen(): Promise<void> {
    this.stopListening = await this.db.listen(INTERRUPT, (conversationId) =>
      this.running.get(conversationId)?.interrupt(),
    );
  }

  add(turn: RunningTurnHandle): void {
    this.running.set(turn.conversationId, turn);
  }

  remove(turn: RunningTurnHandle): void {
    if (this.running.get(turn.conversationId) === turn) this.running.delete(turn.conversationId);
  }

  async interrupt(conversationId: string): Promise<InterruptResult> {
    const turn = this.running.get(conversationId);
    if (turn) {
      turn.interrupt();
      return { interrupted: true, turnId: turn.turnId };
    }
    const elsewhere = await runningTurnOf(this.db, conversationId);
    if (!elsewhere || elsewhere.instanceId === this.db.instanceId) {
      return { interrupted: false, reason: 'no reply is running' };
    }
    await this.db.notify(INTERRUPT, conversationId);
    return { interrupted: true, turnId: elsewhere.id };
  }

  /** Ends every running turn with an error (the service is stopping), so no reader waits forever. */
  async stopAll(): Promise<void> {
    await this.stopListening?.();
    await Promise.all(
      [...this.running.values()].map((turn) => turn.end('error', 'the service stopped during this reply')),
    );
  }
}
