/**
 * Where `persist` keeps a conversation id (the one shown, and the one before a new one was started):
 * `localStorage`, so it survives a reload and a new tab.
 */
export interface PersistedChat {
  load(): string | undefined;
  save(conversationId: string | null): void;
}

export function persistedChat(slot: string): PersistedChat {
  const key = `svc-chat:${slot}`;
  // Storage can be disabled or full (private modes, quotas): persistence is then skipped, never fatal.
  return {
    load() {
      try {
        return localStorage.getItem(key) ?? undefined;
      } catch {
        return undefined;
      }
    },
    save(conversationId) {
      try {
        if (conversationId) localStorage.setItem(key, conversationId);
        else localStorage.removeItem(key);
      } catch {
        // See above.
      }
    },
  };
}
