import { extractClientToolCalls, readClientToolAnswer } from '../protocol/client-tools.js';
import type { ClientToolAnswer, ClientToolCall } from '../protocol/conversation-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';

/**
 * Where a call of a page tool stands, as the chat shows it: `waiting` for the page (nothing done yet),
 * `asking` the visitor to allow it, `running` its handler or sending its answer, `answered` (the answer the
 * conversation holds, or the one this page sent), or `dropped`: its turn was asked again in place of.
 */
export type PageToolCallState =
  | { phase: 'waiting' | 'asking' | 'running' | 'dropped' }
  | { phase: 'answered'; answer: ClientToolAnswer };

/**
 * The calls of the tools the page gives the chat in the conversation shown (docs/elements.md "Tools the page
 * gives the chat"), read from its records whichever order they arrive in: the `assistant` records that make them
 * and the `toolAction` messages that answer them, live or from history. A call is pending until an answer is
 * read or its turn is asked again (regenerate, edit); what the page does meanwhile is `mark`ed here. No DOM.
 */
export class PageToolCalls {
  readonly #calls = new Map<string, ClientToolCall & { turnId?: string }>();
  readonly #answers = new Map<string, ClientToolAnswer>();
  readonly #marks = new Map<string, 'asking' | 'running'>();
  readonly #replaced = new Set<string>();

  /** Reads a record: a call, an answer, or a turn asked again in place of. */
  apply(record: ChatStreamRecord): void {
    const { raw } = record;
    if (raw.type === 'assistant') {
      for (const call of extractClientToolCalls(record))
        this.#calls.set(call.toolUseId, { ...call, turnId: record.turnId });
    } else if (raw.type === 'user') {
      if (raw.replaces) this.#replaced.add(raw.replaces);
      const answer = readClientToolAnswer(raw);
      if (answer) {
        const { toolUseId, ...how } = answer;
        this.#answers.set(toolUseId, how);
        this.#marks.delete(toolUseId);
      }
    }
  }

  /** The calls no answer was read for (and whose turn stands), oldest first: what the page has to answer. */
  get pending(): ClientToolCall[] {
    return [...this.#calls.values()].filter(
      (call) => this.state(call.toolUseId).phase !== 'answered' && this.#stands(call),
    );
  }

  /** Where call `toolUseId` stands. */
  state(toolUseId: string): PageToolCallState {
    const answer = this.#answers.get(toolUseId);
    if (answer) return { phase: 'answered', answer };
    const call = this.#calls.get(toolUseId);
    if (call && !this.#stands(call)) return { phase: 'dropped' };
    return { phase: this.#marks.get(toolUseId) ?? 'waiting' };
  }

  /** What the page is doing about a pending call; `answered` with the answer it sent (before the stream shows it). */
  mark(toolUseId: string, phase: 'asking' | 'running' | { answered: ClientToolAnswer }): void {
    if (typeof phase === 'object') {
      this.#answers.set(toolUseId, phase.answered);
      this.#marks.delete(toolUseId);
    } else this.#marks.set(toolUseId, phase);
  }

  #stands(call: { turnId?: string }): boolean {
    return call.turnId === undefined || !this.#replaced.has(call.turnId);
  }
}
