/**
 * The pauses between tries of something that should come back by itself (the database): 0.1 s, doubling up
 * to 5 s, without end.
 */
export function* backoff(): Generator<number, never> {
  for (let pause = 100; ; pause = Math.min(2 * pause, 5_000)) yield pause;
}
