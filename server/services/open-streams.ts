/**
 * The record streams open in this process, counted per user so that one visitor cannot hold thousands.
 * In memory on purpose: a stream lives and dies with its connection to this process, so with several
 * instances each counts its own (the bound is per user and instance; docs/protocol.md "Limits").
 */
export class OpenStreams {
  private readonly byUser = new Map<string, number>();

  constructor(private readonly perUser: number) {}

  /** Counts a new stream of `user`; undefined when the user already holds `perUser`. Returns the release. */
  open(user: string): (() => void) | undefined {
    const open = this.byUser.get(user) ?? 0;
    if (open >= this.perUser) return undefined;
    this.byUser.set(user, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.byUser.get(user) ?? 1) - 1;
      if (left > 0) this.byUser.set(user, left);
      else this.byUser.delete(user);
    };
  }
}
