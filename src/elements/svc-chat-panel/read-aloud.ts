import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatMessage } from '../../chat/chat-message.js';
import { downloadMessageAudio, MessageAudioCache } from '../../client/audio.js';
import type { HttpClient } from '../../client/http.js';

export type ReadingState = 'loading' | 'playing' | 'paused';

/** Where the speech of a reply comes from: the chat's HTTP client and the conversation shown. */
export interface SpeechSource {
  http: HttpClient;
  conversationId: string | null;
}

/**
 * Reads agent replies aloud through one `<audio>` element per chat, so only one plays at a time: asking
 * for another reply stops the current one. Speech is fetched once per message (`downloadMessageAudio`)
 * and kept in a {@link MessageAudioCache}, which is released when the chat leaves the page.
 *
 * The buttons of all replies are one stop for Tab (a roving tabindex): the one last focused, else the
 * newest reply's; the arrow keys, Home and End move between them.
 */
export class ReadAloudController implements ReactiveController {
  /** The reply being read, if any. */
  messageId?: string;
  state?: ReadingState;
  /** The reply whose speech could not be had. */
  failedId?: string;
  /** The reply whose button was focused last. */
  #focusedId?: string;

  readonly #cache = new MessageAudioCache();
  #loading?: AbortController;

  constructor(
    private readonly host: ReactiveControllerHost & { renderRoot: ParentNode },
    private readonly source: () => SpeechSource | undefined,
  ) {
    host.addController(this);
  }

  /** Looked up rather than kept by the `ref` directive, which the script-tag bundle would otherwise carry. */
  get #audio(): HTMLAudioElement | null {
    return this.host.renderRoot.querySelector('audio[part="audio"]');
  }

  /** A finished reply with text can be read aloud (not one still streaming, nor one that failed). */
  canRead(message: ChatMessage): boolean {
    return (
      message.role === 'agent' && !message.streaming && !message.error && !!message.text.trim() && !!message.agentId
    );
  }

  /** The reply whose button Tab reaches: the one focused last while it is still there, else the newest. */
  tabStop(messages: readonly ChatMessage[]): string | undefined {
    let newest: string | undefined;
    for (const message of messages) {
      if (!this.canRead(message)) continue;
      if (message.id === this.#focusedId) return message.id;
      newest = message.id;
    }
    return newest;
  }

  /** A read-aloud button got the focus: it is the Tab stop from now on. */
  focused(messageId: string): void {
    if (this.#focusedId === messageId) return;
    this.#focusedId = messageId;
    this.host.requestUpdate();
  }

  /** Up and Down, Home and End move the focus between the buttons of the replies. */
  moveFocus(event: KeyboardEvent): void {
    // The same action on the reply above or below (read aloud, copy, 👍 …).
    const part = (event.currentTarget as HTMLElement).getAttribute('part') ?? 'read-aloud-button';
    const buttons = [...this.host.renderRoot.querySelectorAll<HTMLElement>(`[part~=${part.split(' ')[0]}]`)];
    const at = buttons.indexOf(event.currentTarget as HTMLElement);
    const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    buttons[Math.max(0, Math.min(to, buttons.length - 1))]?.focus();
  }

  /** Plays a reply; on the reply being read it pauses or resumes. */
  async toggle(message: ChatMessage): Promise<void> {
    const audio = this.#audio;
    if (!audio) return;
    if (message.id === this.messageId) {
      if (this.state === 'playing') audio.pause();
      else if (this.state === 'paused') await this.#play(audio);
      return;
    }
    this.stop();
    const source = this.source();
    if (!source?.conversationId || !message.agentId) return;
    this.#set(message.id, 'loading');
    this.failedId = undefined;
    const loading = new AbortController();
    this.#loading = loading;
    try {
      let entry = this.#cache.get(message.id);
      if (!entry) {
        const blob = await downloadMessageAudio(source.http, message.agentId, source.conversationId, message.id, {
          signal: loading.signal,
        });
        entry = { blob, url: URL.createObjectURL(blob) };
        this.#cache.set(message.id, entry);
      }
      if (loading.signal.aborted) return;
      audio.src = entry.url!;
      await this.#play(audio);
    } catch {
      if (loading.signal.aborted) return;
      this.failedId = message.id;
      this.#set();
    }
  }

  /** Stops reading. */
  stop(): void {
    this.#loading?.abort();
    this.#loading = undefined;
    this.#audio?.pause();
    this.#set();
  }

  hostDisconnected(): void {
    this.stop();
    this.#cache.clear();
  }

  async #play(audio: HTMLAudioElement): Promise<void> {
    try {
      await audio.play();
    } catch {
      // The browser refused to start sound without a gesture: the reader can press play again.
      this.#now('paused');
    }
  }

  /** The reply being read (if any) is now `state`. */
  #now(state: ReadingState): void {
    if (this.messageId) this.#set(this.messageId, state);
  }

  #set(messageId?: string, state?: ReadingState): void {
    this.messageId = messageId;
    this.state = state;
    this.host.requestUpdate();
  }

  /** The chat's one audio element. */
  render(): TemplateResult {
    return html`<audio
      part="audio"
      preload="none"
      @playing=${() => this.#now('playing')}
      @pause=${(e: Event) => (e.target as HTMLAudioElement).ended || this.#now('paused')}
      @ended=${() => this.#set()}
    ></audio>`;
  }
}
