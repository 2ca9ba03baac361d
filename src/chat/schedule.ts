/**
 * Runs `fn` once the current task and every microtask it queued are done. A microtask would come too
 * early: `for await` over a stream takes microtask hops between records, so the deltas of one network
 * chunk would each run it. It is no timer that keeps Node alive: it runs at once.
 */
export const afterTask: (fn: () => void) => void =
  typeof setImmediate === 'function'
    ? (fn) => {
        setImmediate(fn);
      }
    : (fn) => {
        setTimeout(fn, 0);
      };
