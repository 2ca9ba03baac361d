/**
 * Where `persist` keeps a conversation id (the one shown, and the one before a new one was started):
 * `localStorage`, so it survives a reload and a new tab; and, for this tab only (`sessionStorage`), whether
 * the launcher's panel is open and the text being written.
 */
export interface PersistedChat {
  load(): string | undefined;
  save(conversationId: string | null): void;
}

export function persistedChat(slot: string, tab = false): PersistedChat {
  const key = `svc-chat:${slot}`;
  // Storage can be disabled or full (private modes, quotas): persistence is then skipped, never fatal.
  return {
    load() {
      try {
        return (tab ? sessionStorage : localStorage).getItem(key) ?? undefined;
      } catch {
        return undefined;
      }
    },
    save(conversationId) {
      try {
        const storage = tab ? sessionStorage : localStorage;
        if (conversationId) storage.setItem(key, conversationId);
        else storage.removeItem(key);
      } catch {
        // See above.
      }
    },
  };
}
