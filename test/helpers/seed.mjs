/** The seed of every random choice the suites make: `SVC_SEED` replays a failed run, else one per run. */
export const SEED = Number(process.env.SVC_SEED) || Date.now() % 1_000_000;
