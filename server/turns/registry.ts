import type { InterruptResult, ResultSubtype } from '../../src/client/types.js';

/** What the registry needs of a running turn (turns/active-turn.ts). */
export interface RunningTurnHandle {
  readonly conversationId: string;
  readonly turnId: string;
  interrupt(): void;
  end(subtype: ResultSubtype, error?: string): void;
}

/** The turns running in this process, by conversation id (for interrupt and shutdown). */
export class TurnRegistry {
  private readonly running = new Map<string, RunningTurnHandle>();

  add(turn: RunningTurnHandle): void {
    this.running.set(turn.conversationId, turn);
  }

  remove(turn: RunningTurnHandle): void {
    if (this.running.get(turn.conversationId) === turn) this.running.delete(turn.conversationId);
  }

  interrupt(conversationId: string): InterruptResult {
    const turn = this.running.get(conversationId);
    if (!turn) return { interrupted: false, reason: 'no reply is running' };
    turn.interrupt();
    return { interrupted: true, turnId: turn.turnId };
  }

  /** Ends every running turn with an error (the service is stopping), so no reader waits forever. */
  stopAll(): void {
    for (const turn of [...this.running.values()]) turn.end('error', 'the service stopped during this reply');
  }
}
