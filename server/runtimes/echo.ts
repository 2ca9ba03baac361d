import type { Runtime } from './types.js';

/** How many deltas a reply is split into. */
const CHUNKS = 3;

/** Splits text into `count` near-equal pieces (by code point, so no surrogate pair is cut); none empty. */
function splitEvenly(text: string, count: number): string[] {
  const chars = [...text];
  const size = Math.ceil(chars.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/** Replies `Echo: <message>` in a few deltas, then the whole message. Deterministic, for tests. */
export const echoRuntime: Runtime = {
  async run(input, io) {
    const reply = io.streamText();
    for (const piece of splitEvenly(`Echo: ${input.text}`, CHUNKS)) reply.write(piece);
    reply.end();
  },
};
