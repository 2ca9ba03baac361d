import { SEED } from '../helpers/seed.mjs';

/**
 * Sizes of the reliability suites: `npm test` runs the quick size, `npm run soak` (SVC_SOAK=1) the long one.
 * SVC_SEED replays a failed run: every random choice of a suite comes from `random(seed)`.
 */
export { SEED };

export const SOAK = process.env.SVC_SOAK === '1';

export const size = (quick: number, soak: number) => (SOAK ? soak : quick);

/** A small seeded generator (mulberry32): uniform in [0, 1). */
export function random(seed: number = SEED): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
