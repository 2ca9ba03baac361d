import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatApi } from '../../chat/chat-api.js';

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
    return renderPrompts(this.prompts, send, label, 'starter-prompts', 'starter-prompt');
  }
}

/**
 * Texts the visitor may send with one press, as a labelled group of buttons (`groupPart`, each `buttonPart`):
 * an agent's starter prompts, and the replies its last reply suggests.
 */
export function renderPrompts(
  prompts: readonly string[],
  send: (prompt: string) => void,
  label: string,
  groupPart: string,
  buttonPart: string,
): TemplateResult | typeof nothing {
  if (!prompts.length) return nothing;
  return html`<div part=${groupPart} class="prompts" role="group" aria-label=${label}>
    ${prompts.map(
      (prompt) =>
        html`<button part=${buttonPart} type="button" dir="auto" @click=${() => send(prompt)}>${prompt}</button>`,
    )}
  </div>`;
}
