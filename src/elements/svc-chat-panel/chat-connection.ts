import { ContextProvider } from '@lit/context';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ChatStore } from '../../chat/chat-store.js';
import { type ChatClientOptions, createChatClient } from '../../chat/create-chat-client.js';
import type { ChatClient } from '../../client/chat.js';
import { PaymentsClient } from '../../client/payments.js';
import { cardHostContext } from '../../internal/context.js';
import type { SvcEmitter } from '../../internal/emit.js';
import type { PersistedChat } from '../../internal/persist.js';
import { type ChatSettings, persistedConversation, targetAgentIds } from '../svc-chat/chat-settings.js';
import { Reachability } from './reachability.js';
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
 * The wire between `<svc-chat>`'s panel and its {@link ChatStore}: builds the chat client (`createChatClient`)
 * and the store from the element's settings, again when a setting they came from changes; re-renders the
 * element when the store changes; hands the store's events on as `svc-*` events; keeps the conversation id
 * and the outbox for `persist`; sends the outbox when the service answers again (`Reachability`); and provides
 * the cards with the client and the store (`cardHostContext`).
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
  /** Whether the service at `base-url` answers. */
  readonly reachability: Reachability;
  /** The conversation shown before the visitor started a new one: the way back to it. */
  previous?: string;
  #previousSlot?: PersistedChat;
  #setup?: unknown[];
  #conversationId?: string;
  #agents?: string;
  #unsubscribes: (() => void)[] = [];
  readonly #cards: ContextProvider<typeof cardHostContext>;
  /**
   * The host's update for text streamed into a reply: it comes a render interval later (`REPLY_RENDER_INTERVAL_MS`,
   * the rate the reply renders at), so the panel's rows are not compared again for every delta.
   */
  #streamed?: ReturnType<typeof setTimeout>;
  /** The browser is online again: ask the service at once, and send the outbox. */
  readonly #online = (): void => {
    if (!this.host.client) void this.reachability.check();
    void this.store?.outbox.send();
  };

  constructor(private readonly host: ConnectionHost) {
    this.#cards = new ContextProvider(host, { context: cardHostContext });
    this.reachability = new Reachability(host, (was) => {
      void this.store?.outbox.send();
      // The failure said was that the service could not be reached: it can now.
      if (was && this.failure?.status === undefined) this.store?.clearError();
    });
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
    this.reachability.stop();
    clearTimeout(this.#streamed);
    this.#streamed = undefined;
    for (const off of this.#unsubscribes) off();
    this.#unsubscribes = [];
    this.store?.dispose();
    this.store = undefined;
    this.#cards.setValue(undefined);
    this.host.connectionChanged(undefined);
  }

  /** (Re)builds the client and the store from the current settings, and shows the conversation kept or asked for. */
  start(): void {
    this.stop();
    const { host } = this;
    this.#setup = this.#settings();
    this.reachability.start(this.#setup);
    this.#conversationId = host.conversationId;
    const chat = this.#client();
    if (!chat) {
      if (host.signIn === 'sms') this.reachability.checkOnce();
      host.requestUpdate();
      return;
    }
    const store = new ChatStore({ api: chat, targetAgentIds: targetAgentIds(host) });
    const persisted = persistedConversation(host);
    this.#previousSlot = persistedConversation(host, 'previous');
    this.previous = this.#previousSlot?.load();
    const outboxSlot = persistedConversation(host, 'outbox');
    const kept = outboxSlot && store.outbox.keepIn(outboxSlot);
    this.#unsubscribes = [...this.#listen(store), ...(kept ? [kept.stop] : [])];
    this.#unsubscribes.push(store.on('conversation-change', ({ conversationId }) => persisted?.save(conversationId)));
    this.store = store;
    this.#cards.setValue({
      client: { chat, payments: new PaymentsClient(chat.http) },
      send: (text, options) => store.send(text, options),
    });
    host.connectionChanged({ chat, store });
    host.requestUpdate();
    const resume = host.conversationId || persisted?.load();
    // What the outbox kept is put back once its conversation shows.
    if (resume) void store.load(resume).then(kept?.restore);
    else kept?.restore();
    host.emit('svc-ready', { conversationId: resume ?? null });
    this.reachability.checkOnce();
  }

  /** The chat client of the settings: the page's, or one made for the credential; undefined without one. */
  #client(): ChatClient | undefined {
    const { host } = this;
    this.fatal = undefined;
    if (host.client) return host.client.chat;
    const { token, tokenProvider, tokenEndpoint, tokenCredentials } = host;
    const credentials =
      tokenProvider || tokenEndpoint || token || host.signIn !== 'sms'
        ? { token, tokenProvider, tokenEndpoint, tokenCredentials }
        : host.signedInVisitor();
    try {
      return createChatClient({ baseUrl: host.baseUrl || location.origin, ...credentials });
    } catch (err) {
      // A workspace key: the client refuses it in a browser, and says why.
      this.fatal = (err as Error).message;
      return undefined;
    }
  }

  /** The store's changes re-render the panel, and its events go to the page. */
  #listen(store: ChatStore): (() => void)[] {
    const { host } = this;
    let stream = store.connection;
    return [
      store.subscribe(() => {
        // The stream is back (it was reconnecting): the service answers, and the outbox goes.
        const back = store.connection === 'open' && stream !== 'open';
        stream = store.connection;
        if (back) {
          this.reachability.reached();
          if (store.outbox.ids.length) void store.outbox.send();
        }
        this.#render(store);
      }),
      store.on('message-sent', ({ request, result }) => {
        // A message that went through (a retry too) makes the last failure old news: its notice goes, while
        // the failed message keeps its own.
        store.clearError();
        this.reachability.reached();
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
        if (status === undefined) this.reachability.checkLater();
        host.emit('svc-error', { message, status });
        console.error(`<svc-chat>: ${message}`);
      }),
      store.on('feedback', (feedback) => host.emit('svc-feedback', feedback)),
    ];
  }

  /** Renders a change now, or streamed text with the reply's next render. */
  #render(store: ChatStore): void {
    if (!store.streamedOnly) this.host.requestUpdate();
    else
      this.#streamed ??= setTimeout(() => {
        this.#streamed = undefined;
        this.host.requestUpdate();
      }, REPLY_RENDER_INTERVAL_MS);
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
}
