import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock, ToolUseBlock } from '@svc/agent-sdk/protocol';
import { randomId } from '../store/ids.js';
import type { TurnIO } from './types.js';

/** How the demo agent speaks (demo.ts, demo-page-tools.ts): streamed text, with tool calls around it. */

export interface SayOptions {
  /** Characters per delta. */
  chunk?: number;
  /** Pause between deltas, so the reply visibly streams. */
  delayMs?: number;
  before?: ContentBlock[];
  after?: ContentBlock[];
}

/** Streams `text` as one message in small deltas; stops at once on interrupt. */
export async function say(io: TurnIO, text: string, options: SayOptions = {}): Promise<void> {
  const { chunk = 16, delayMs = 15 } = options;
  const stream = io.streamText();
  const chars = [...text];
  for (let i = 0; i < chars.length; i += chunk) {
    if (i > 0) await sleep(delayMs, undefined, { signal: io.signal });
    stream.write(chars.slice(i, i + chunk).join(''));
  }
  stream.end({ before: options.before, after: options.after });
}

export const toolUse = (name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id: randomId('toolu', 12),
  name,
  input,
});
