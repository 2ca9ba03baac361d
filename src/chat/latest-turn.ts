import type { AgentStatus, ChatStreamRecord, ResultRawEvent } from '../protocol/types.js';

const NO_STATUS: Readonly<Record<string, AgentStatus>> = Object.freeze({});

/**
 * The state of the conversation's latest turn, which only its newest records move (`MessageLog`): whether it
 * runs, where it started, and what each agent heard from is doing.
 */
export class LatestTurn {
  /** A turn is open: its user record (or the send that stored it) arrived and its `result` did not. */
  open = false;
  /** Where the open turn started, the id of its user record if known: a stream resumed after it replays the turn. */
  start?: string;
  /** The latest status of each agent heard from; every one `idle` once a turn ends. */
  agentStatus = NO_STATUS;
  /** The display name of each agent heard from, by id (records carry it). */
  agentNames: Readonly<Record<string, string>> = Object.freeze({});

  /** A turn started: the service stored its user record as record `start` (applied or not yet). */
  begin(start: string | undefined): void {
    this.open = true;
    this.start = start;
  }

  /** The turn ended (its `result`): every agent heard from, or named by it, is idle. */
  end(raw?: ResultRawEvent): void {
    this.open = false;
    if (!raw) return;
    const agents = [...Object.keys(this.agentStatus), ...(raw.agentIds ?? [])];
    this.agentStatus = Object.freeze(Object.fromEntries(agents.map((id) => [id, 'idle' as const])));
  }

  status(agentId: string, status: AgentStatus): void {
    this.agentStatus = Object.freeze({ ...this.agentStatus, [agentId]: status });
  }

  /** Any record: the name its agent goes by. */
  heard({ agentId, agentName }: ChatStreamRecord): void {
    if (agentId && agentName && this.agentNames[agentId] !== agentName) {
      this.agentNames = Object.freeze({ ...this.agentNames, [agentId]: agentName });
    }
  }
}
