'use client';

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ChatApi } from '../chat/chat-api.js';
import type { ChatMessage, MessageFields } from '../chat/chat-message.js';
import { ChatStore, type ChatStoreEvents } from '../chat/chat-store.js';
import { type ChatClientOptions, createChatClient } from '../chat/create-chat-client.js';
import type { ConnectionState } from '../client/record-stream.js';
import type { AgentStatus, InterruptResult, SendResult } from '../protocol/types.js';

/**
 * Where the chat talks to, as `<svc-chat>` takes it. Authentication, most preferred first: `client`;
 * `tokenProvider` or `tokenEndpoint` (renewed before it expires and on a 401); `token` (not renewed).
 */
export interface UseSvcChatOptions extends ChatClientOptions {
  /** A ready client (e.g. `new SvcClient(…)`), used as it is; keep it stable (a new one rebuilds the chat). */
  client?: { chat: ChatApi };
  /** Agents of new conversations. */
  agentIds?: string[];
  /** Shows this conversation instead of starting a new one. */
  conversationId?: string;
  /** Turns per page of history. */
  historyTurns?: number;
  onMessageSent?: (detail: ChatStoreEvents['message-sent']) => void;
  onTurnComplete?: (detail: ChatStoreEvents['turn-complete']) => void;
  onError?: (detail: ChatStoreEvents['error']) => void;
  onConversationChange?: (detail: ChatStoreEvents['conversation-change']) => void;
}

/** `loading`: the latest page of history is being read; `running`: a message is sent or a reply runs. */
export type SvcChatStatus = 'idle' | 'loading' | 'running';

export interface SvcChatState {
  messages: readonly ChatMessage[];
  status: SvcChatStatus;
  running: boolean;
  connection: ConnectionState;
  error: string | null;
  conversationId: string | null;
  agentStatus: Readonly<Record<string, AgentStatus>>;
  hasMoreHistory: boolean;
  loadingHistory: boolean;
  /** Replies the last finished reply suggests, to offer as one-tap buttons that `send` them (`ChatStore.suggestions`). */
  suggestions: readonly string[];
  /** Resolves to the send's result, or `undefined` when it failed (the message stays, `failed`, for `retry`). */
  send: (text: string, options?: MessageFields) => Promise<SendResult | undefined>;
  interrupt: () => Promise<InterruptResult | undefined>;
  /** Sends a `failed` message again. */
  retry: (messageId: string) => Promise<SendResult | undefined>;
  loadOlder: () => Promise<void>;
  /** Starts a new conversation with the next message. */
  reset: () => void;
  clearError: () => void;
  /** The store itself, `null` until the first effect ran or without credentials. */
  store: ChatStore | null;
}

const NO_MESSAGES: readonly ChatMessage[] = Object.freeze([]);
const NO_STATUS: Readonly<Record<string, AgentStatus>> = Object.freeze({});
const NO_SUGGESTIONS: readonly string[] = Object.freeze([]);
const noSubscription = () => () => {};

/**
 * The chat of `<svc-chat>` without its view: the same {@link ChatStore}, for a page that renders messages
 * itself. The store is rebuilt when the connection options change and disposed on unmount.
 */
export function useSvcChat(options: UseSvcChatOptions): SvcChatState {
  // Callbacks and the token provider are read when used, so passing new functions each render is fine.
  const latest = useRef(options);
  latest.current = options;
  const [setupError, setSetupError] = useState<string | null>(null);
  const store = useChatStore(latest, setSetupError);

  const conversationId = options.conversationId;
  useEffect(() => {
    if (store && conversationId && conversationId !== store.conversationId) void store.load(conversationId);
  }, [store, conversationId]);

  const agentKey = options.agentIds?.join(' ');
  useEffect(() => {
    if (store) store.targetAgentIds = agentKey ? agentKey.split(' ') : undefined;
  }, [store, agentKey]);

  useSyncExternalStore(
    store ? store.subscribe : noSubscription,
    () => store?.version ?? -1,
    () => -1,
  );

  const send = useCallback(
    (text: string, fields?: MessageFields) => store?.send(text, fields) ?? Promise.resolve(undefined),
    [store],
  );
  const interrupt = useCallback(() => store?.interrupt() ?? Promise.resolve(undefined), [store]);
  const retry = useCallback((id: string) => store?.retry(id) ?? Promise.resolve(undefined), [store]);
  const loadOlder = useCallback(() => store?.loadOlder() ?? Promise.resolve(), [store]);
  const reset = useCallback(() => store?.reset(), [store]);
  const clearError = useCallback(() => {
    setSetupError(null);
    store?.clearError();
  }, [store]);

  const loading = !!store?.loadingHistory && store.messages.length === 0;
  return {
    messages: store?.messages ?? NO_MESSAGES,
    status: store?.running ? 'running' : loading ? 'loading' : 'idle',
    running: store?.running ?? false,
    connection: store?.connection ?? 'idle',
    error: setupError ?? store?.error ?? null,
    conversationId: store?.conversationId ?? null,
    agentStatus: store?.agentStatus ?? NO_STATUS,
    hasMoreHistory: store?.hasMoreHistory ?? false,
    loadingHistory: store?.loadingHistory ?? false,
    suggestions: store?.suggestions ?? NO_SUGGESTIONS,
    send,
    interrupt,
    retry,
    loadOlder,
    reset,
    clearError,
    store,
  };
}

/**
 * The store of the connection options `latest` holds, made again when they change, its events handed to the
 * options' callbacks; `null` until the first effect ran or without credentials (`setupError` says why).
 */
function useChatStore(
  latest: { readonly current: UseSvcChatOptions },
  setSetupError: (error: string | null) => void,
): ChatStore | null {
  const { client, baseUrl, token, tokenEndpoint, historyTurns } = latest.current;
  const hasProvider = !!latest.current.tokenProvider;
  const [store, setStore] = useState<ChatStore | null>(null);
  useEffect(() => {
    let api: ChatApi | undefined;
    try {
      api =
        client?.chat ??
        createChatClient({
          baseUrl,
          token,
          tokenEndpoint,
          // Read when a token is needed, so a new function each render is fine.
          tokenProvider: hasProvider ? () => latest.current.tokenProvider!() : undefined,
        });
    } catch (err) {
      // A workspace key: the client refuses it in a browser, and says why.
      setSetupError((err as Error).message);
      return;
    }
    if (!api) return;
    const created = new ChatStore({ api, targetAgentIds: latest.current.agentIds, historyTurns });
    const offs = [
      created.on('message-sent', (detail) => latest.current.onMessageSent?.(detail)),
      created.on('turn-complete', (detail) => latest.current.onTurnComplete?.(detail)),
      created.on('error', (detail) => latest.current.onError?.(detail)),
      created.on('conversation-change', (detail) => latest.current.onConversationChange?.(detail)),
    ];
    setSetupError(null);
    setStore(created);
    return () => {
      for (const off of offs) off();
      created.dispose();
      setStore(null);
    };
  }, [client, baseUrl, token, tokenEndpoint, hasProvider, historyTurns, latest, setSetupError]);
  return store;
}
