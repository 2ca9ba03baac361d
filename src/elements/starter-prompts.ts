import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatApi } from '../chat/chat-api.js';

/**
 * An agent's starter prompts (agent settings, `GET /agents/{agentId}/prompts`), shown as buttons in an empty
 * conversation; a pressed one is sent as the visitor's message. Asked once per agent and client; a new question
 * aborts the one before, and a chat whose client cannot ask (no `agentPrompts`) shows none.
 */
export class StarterPromptsController implements ReactiveController {
  prompts: readonly string[] = [];
  #asked?: { api: ChatApi; agentId: string };
  #request?: AbortController;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#request?.abort();
    this.#asked = undefined;
  }

  /** The prompts of `agentId` (the chat's first agent) through `api`, unless already asked. */
  follow(api: ChatApi | undefined, agentId: string | undefined): void {
    if (api === this.#asked?.api && agentId === this.#asked?.agentId) return;
    this.#request?.abort();
    this.prompts = [];
    this.#asked = api && agentId ? { api, agentId } : undefined;
    if (!api?.agentPrompts || !agentId) return;
    const request = new AbortController();
    this.#request = request;
    api.agentPrompts(agentId, { signal: request.signal }).then(
      ({ starter_prompts }) => {
        if (request.signal.aborted) return;
        this.prompts = starter_prompts;
        this.host.requestUpdate();
      },
      () => {
        // Without its prompts the chat is still a chat: the empty state says what it always says.
      },
    );
  }

  render(send: (prompt: string) => void, label: string): TemplateResult | typeof nothing {
    if (!this.prompts.length) return nothing;
    return html`<div part="starter-prompts" role="group" aria-label=${label}>
      ${this.prompts.map(
        (prompt) =>
          html`<button part="starter-prompt" type="button" dir="auto" @click=${() => send(prompt)}>${prompt}</button>`,
      )}
    </div>`;
  }
}
