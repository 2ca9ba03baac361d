/**
 * The record streams open in this process, counted per user so that one visitor cannot hold thousands.
 * In memory on purpose: a stream lives and dies with its connection to this process, so with several
 * instances each counts its own (the bound is per user and instance; docs/protocol.md "Limits").
 */
export class OpenStreams {
  private readonly byUser = new Map<string, number>();
  /** How to end each open stream (a draining instance ends them all). */
  private readonly ends = new Set<() => void>();

  constructor(private readonly perUser: number) {}

  /** Streams open now, of every user. */
  get total(): number {
    return this.ends.size;
  }

  /**
   * Counts a new stream of `user`, which `end` closes; undefined when the user already holds `perUser`.
   * Returns the release.
   */
  open(user: string, end: () => void): (() => void) | undefined {
    const open = this.byUser.get(user) ?? 0;
    if (open >= this.perUser) return undefined;
    this.byUser.set(user, open + 1);
    this.ends.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.ends.delete(end);
      const left = (this.byUser.get(user) ?? 1) - 1;
      if (left > 0) this.byUser.set(user, left);
      else this.byUser.delete(user);
    };
  }

  /** Ends every open stream: its client resumes from its cursor, on another instance when this one drains. */
  endAll(): void {
    for (const end of [...this.ends]) end();
  }
}
