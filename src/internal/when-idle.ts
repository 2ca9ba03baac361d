/** Runs `task` when the page is idle; at the latest after `timeout` ms (a `setTimeout` where Safari lacks the API). */
export function whenIdle(task: () => void, timeout?: number): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(task, timeout ? { timeout } : undefined);
  else setTimeout(task, 1);
}
