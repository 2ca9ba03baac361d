import { ContextProvider } from '@lit/context';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ChatStore, type WaitingMessage } from '../../chat/chat-store.js';
import { type ChatClientOptions, createChatClient } from '../../chat/create-chat-client.js';
import type { ChatClient } from '../../client/chat.js';
import { PaymentsClient } from '../../client/payments.js';
import { cardHostContext } from '../../internal/context.js';
import type { SvcEmitter } from '../../internal/emit.js';
import type { PersistedChat } from '../../internal/persist.js';
import { type ChatSettings, persistedConversation, targetAgentIds } from '../svc-chat/chat-settings.js';
import { REPLY_RENDER_INTERVAL_MS } from './reply-render-interval.js';

/** What the connection needs of the chat's panel: its settings, and what it does when the connection changes. */
export interface ConnectionHost extends ReactiveControllerHost, SvcEmitter, ChatSettings {
  /** The chat shows (inline, or the launcher's panel open). */
  readonly shown: boolean;
  /** The credential when none of `client`, `tokenProvider`, `tokenEndpoint` and `token` is set (an SMS session). */
  signedInVisitor(): Omit<ChatClientOptions, 'baseUrl'>;
  /** A new client and store are in use (`undefined`: none, until the visitor signs in). */
  connectionChanged(connection: { chat: ChatClient; store: ChatStore } | undefined): void;
  /** The service refused the credential. */
  unauthorized(): void;
}

/**
 * The client wiring of `<svc-chat>`: builds the chat client (`createChatClient`) and its {@link ChatStore}
 * from the element's settings, builds them again when a setting they came from changes, re-renders the
 * element when the store changes, hands the store's events on as `svc-*` events, keeps the conversation id
 * for `persist`, and provides the cards with the client and the store (`cardHostContext`).
 */
export class ChatConnection implements ReactiveController {
  store?: ChatStore;
  /** Why the chat cannot start: a workspace key given as the token (the client says why). */
  fatal?: string;
  /**
   * The status of the store's last error (undefined: no answer), and whether it was a reply that failed, which
   * its message says. The visitor reads a plain sentence; the detail goes to `svc-error` and the console.
   */
  failure?: { status?: number; reply: boolean };
  /** The service at `base-url` did not answer the last check; undefined: not asked since the chat started. */
  unreachable?: boolean;
  /** The conversation shown before the visitor started a new one: the way back to it. */
  previous?: string;
  #previousSlot?: PersistedChat;
  #setup?: unknown[];
  /** The setup whose service was asked about once the chat showed (a check may still be on its way). */
  #asked?: unknown[];
  #conversationId?: string;
  #agents?: string;
  #unsubscribes: (() => void)[] = [];
  readonly #cards: ContextProvider<typeof cardHostContext>;
  /** While the service does not answer: the next check, and the wait before it (doubling to 8 s). */
  #recheck?: ReturnType<typeof setTimeout>;
  #recheckMs = 1000;
  /**
   * The host's update for text streamed into a reply: it comes a render interval later (`REPLY_RENDER_INTERVAL_MS`,
   * the rate the reply renders at), so the panel's rows are not compared again for every delta.
   */
  #streamed?: ReturnType<typeof setTimeout>;
  /** The browser is online again: ask the service at once, and send the outbox. */
  readonly #online = (): void => {
    if (!this.host.client) void this.checkReachability();
    void this.store?.sendWaiting();
  };

  constructor(private readonly host: ConnectionHost) {
    this.#cards = new ContextProvider(host, { context: cardHostContext });
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('online', this.#online);
    this.start();
  }

  hostDisconnected(): void {
    removeEventListener('online', this.#online);
    this.stop();
  }

  hostUpdate(): void {
    const { host } = this;
    // This update renders the store as it is now, streamed text included.
    clearTimeout(this.#streamed);
    this.#streamed = undefined;
    if (this.#settings().some((value, i) => value !== this.#setup?.[i])) this.start();
    else if (host.conversationId !== this.#conversationId) {
      this.#conversationId = host.conversationId;
      if (host.conversationId) void this.store?.load(host.conversationId);
    }
    const agents = `${host.agentIds}|${host.agentId}`;
    if (agents !== this.#agents && this.store) this.store.targetAgentIds = targetAgentIds(host);
    this.#agents = agents;
  }

  /**
   * What the client and the store were built from: when any of it changes (also a `tokenProvider` set just
   * after the element connected), the chat starts again with it.
   */
  #settings(): unknown[] {
    const { host } = this;
    return [
      host.baseUrl,
      host.token,
      host.tokenEndpoint,
      host.tokenCredentials,
      host.signIn,
      host.workspace,
      host.persist,
      host.tokenProvider,
      host.client,
    ];
  }

  stop(): void {
    this.unreachable = undefined;
    clearTimeout(this.#recheck);
    this.#recheck = undefined;
    clearTimeout(this.#streamed);
    this.#streamed = undefined;
    for (const off of this.#unsubscribes) off();
    this.#unsubscribes = [];
    this.store?.dispose();
    this.store = undefined;
    this.#cards.setValue(undefined);
    this.host.connectionChanged(undefined);
  }

  /** (Re)builds the client and the store from the current settings. */
  start(): void {
    this.stop();
    const { host } = this;
    this.#setup = this.#settings();
    this.#conversationId = host.conversationId;
    this.fatal = undefined;
    let chat = host.client?.chat;
    if (!chat) {
      const { token, tokenProvider, tokenEndpoint, tokenCredentials } = host;
      const credentials =
        tokenProvider || tokenEndpoint || token || host.signIn !== 'sms'
          ? { token, tokenProvider, tokenEndpoint, tokenCredentials }
          : host.signedInVisitor();
      try {
        chat = createChatClient({ baseUrl: host.baseUrl || location.origin, ...credentials });
      } catch (err) {
        // A workspace key: the client refuses it in a browser, and says why.
        this.fatal = (err as Error).message;
      }
      if (!chat) {
        if (host.signIn === 'sms') this.checkReachabilityOnce();
        host.requestUpdate();
        return;
      }
    }

    const store = new ChatStore({ api: chat, targetAgentIds: targetAgentIds(host) });
    let stream = store.connection;
    const persisted = persistedConversation(host);
    this.#previousSlot = persistedConversation(host, 'previous');
    this.previous = this.#previousSlot?.load();
    const outbox = persistedConversation(host, 'outbox');
    const earlier = readOutbox(outbox?.load());
    // What was kept is written again only once it is back in the outbox (a reload meanwhile keeps it).
    let kept: string | undefined;
    let restored = false;
    /** Keeps the outbox for this tab: a reload sends what was waiting. */
    const saveOutbox = () => {
      const waiting = store.waiting.length
        ? JSON.stringify({ conversationId: store.conversationId, messages: store.waitingMessages })
        : undefined;
      if (outbox && restored && waiting !== kept) {
        kept = waiting;
        outbox.save(waiting ?? null);
      }
    };
    this.#unsubscribes = [
      store.subscribe(() => {
        saveOutbox();
        // The stream is back (it was reconnecting): the service answers, and the outbox goes.
        const back = store.connection === 'open' && stream !== 'open';
        stream = store.connection;
        if (back) {
          this.#recheckMs = 1000;
          if (this.unreachable) this.unreachable = false;
          if (store.waiting.length) void store.sendWaiting();
        }
        if (!store.streamedOnly) host.requestUpdate();
        else
          this.#streamed ??= setTimeout(() => {
            this.#streamed = undefined;
            host.requestUpdate();
          }, REPLY_RENDER_INTERVAL_MS);
      }),
      store.on('message-sent', ({ request, result }) => {
        // A message that went through (a retry too) makes the last failure old news: its notice goes, while
        // the failed message keeps its own.
        store.clearError();
        this.#recheckMs = 1000;
        host.emit('svc-message-sent', { conversationId: result.conversationId, text: request.message, result });
      }),
      // Told once the chat shows the turn: a page (or its tests) that then reads the chat finds the reply there.
      store.on('turn-complete', (detail) => {
        host.requestUpdate();
        void host.updateComplete.then(() => host.emit('svc-turn-complete', detail));
      }),
      store.on('error', ({ message, status, cause }) => {
        // A reply that failed has the turn's `result` record as its cause.
        this.failure = { status, reply: (cause as { type?: unknown } | undefined)?.type === 'result' };
        if (status === 401) host.unauthorized();
        // No answer: say whether the service is there, and ask again until it is (then the outbox goes).
        if (status === undefined && !this.host.client) this.#checkLater();
        host.emit('svc-error', { message, status });
        console.error(`<svc-chat>: ${message}`);
      }),
      store.on('conversation-change', ({ conversationId }) => persisted?.save(conversationId)),
      store.on('feedback', (feedback) => host.emit('svc-feedback', feedback)),
    ];
    this.store = store;
    this.#cards.setValue({
      client: { chat, payments: new PaymentsClient(chat.http) },
      send: (text, options) => store.send(text, options),
    });
    host.connectionChanged({ chat, store });
    host.requestUpdate();
    const resume = host.conversationId || persisted?.load();
    const restore = () => {
      restored = true;
      const { conversationId, messages } = earlier;
      if (!messages.length || conversationId !== store.conversationId) return saveOutbox();
      store.restoreWaiting(messages);
      void store.sendWaiting();
    };
    if (resume) void store.load(resume).then(restore);
    else restore();
    host.emit('svc-ready', { conversationId: resume ?? null });
    this.checkReachabilityOnce();
  }

  /** Starts a new conversation with the next message, keeping the way back to the one shown. */
  newConversation(): void {
    const store = this.store;
    if (store?.conversationId) this.#setPrevious(store.conversationId);
    store?.reset();
  }

  /** Shows the conversation before the new one again; the new one, if the visitor wrote in it, becomes the way back. */
  backToPrevious(): void {
    const { store, previous } = this;
    if (!store || !previous) return;
    this.#setPrevious(store.conversationId ?? undefined);
    void store.load(previous);
  }

  /** Shows a conversation of the visitor's list; the one shown before becomes the way back to it. */
  open(conversationId: string): void {
    const store = this.store;
    if (!store || store.conversationId === conversationId) return;
    if (store.conversationId) this.#setPrevious(store.conversationId);
    void store.load(conversationId);
  }

  /** A conversation was deleted: no way leads back to it, and the chat that showed it starts a new one. */
  forget(conversationId: string): void {
    if (this.previous === conversationId) this.#setPrevious(undefined);
    if (this.store?.conversationId === conversationId) this.store.reset();
    this.host.requestUpdate();
  }

  #setPrevious(conversationId: string | undefined): void {
    this.previous = conversationId;
    this.#previousSlot?.save(conversationId ?? null);
  }

  /** Asks the service again after the current wait (1 s, doubling to 8 s until a message or the stream gets through). */
  #checkLater(): void {
    if (this.#recheck) return;
    this.#recheck = setTimeout(() => void this.checkReachability(true), this.#recheckMs);
    this.#recheckMs = Math.min(this.#recheckMs * 2, 8000);
  }

  /**
   * Once the chat shows (inline, or the launcher's panel open), asks whether the service at `base-url`
   * answers, so a wrong address is said before the visitor types: once for each setup, however often the chat
   * starts or shows. A given `client` has no address to ask.
   */
  checkReachabilityOnce(): void {
    if (this.#asked === this.#setup || this.host.client || !this.host.shown) return;
    this.#asked = this.#setup;
    void this.checkReachability();
  }

  /**
   * Any HTTP answer proves the service is there. `OPTIONS` is what browsers send it before each call anyway
   * (the CORS preflight): no credential, no effect, and no error in the console, which a `GET` without a
   * token would log. The visitor reads a plain sentence; the site's developer reads the address in the
   * `svc-error` event and in the browser's own console line about the refused request.
   */
  async checkReachability(again = false): Promise<void> {
    const setup = this.#setup;
    const url = this.host.baseUrl || location.origin;
    const answered = await fetch(`${url}/api/v2/`, { method: 'OPTIONS' }).then(
      () => true,
      () => false,
    );
    // The chat started again meanwhile, with another setup: this answer is about the old one.
    if (setup !== this.#setup) return;
    const was = this.unreachable;
    this.unreachable = !answered;
    clearTimeout(this.#recheck);
    this.#recheck = undefined;
    if (answered) {
      this.#recheckMs = 1000;
      if (this.store?.waiting.length) void this.store.sendWaiting();
      // The failure said was that the service could not be reached: it can now.
      if (was && this.failure?.status === undefined) this.store?.clearError();
    } else this.#checkLater();
    this.host.requestUpdate();
    // Said on each check the visitor asked for, not on every check made while waiting for the service.
    if (!answered && !(again && was)) this.host.emit('svc-error', { message: `no answer from ${url}` });
  }
}

/** The outbox a page before this one kept (`{ conversationId, messages }`); nothing when it is unreadable. */
function readOutbox(json: string | undefined): { conversationId: string | null; messages: WaitingMessage[] } {
  try {
    const kept = json ? JSON.parse(json) : undefined;
    if (Array.isArray(kept?.messages)) return kept;
  } catch {
    // Storage written by something else: nothing to restore.
  }
  return { conversationId: null, messages: [] };
}
