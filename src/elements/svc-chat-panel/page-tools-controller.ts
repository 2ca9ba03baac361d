import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatStore } from '../../chat/chat-store.js';
import { type PageTool, pageToolAnswer, pageToolDeclarations, runPageTool } from '../../client/page-tools.js';
import type { SvcEmitter } from '../../internal/emit.js';
import type { ChatLabels } from '../../labels/label-types.js';
import { CLIENT_TOOL_LIMITS } from '../../protocol/client-tools.js';
import type { ClientToolAnswer, ClientToolCall } from '../../protocol/conversation-types.js';
import type { ToolUseBlock } from '../../protocol/record-types.js';

/** What the controller needs of the chat's panel: its store, the page's tools, its labels and its events. */
type Host = ReactiveControllerHost &
  SvcEmitter & { readonly store?: ChatStore; readonly tools?: PageTool[]; readonly chatLabels: ChatLabels };

/** What `svc-tool-call` carries (declared with `<svc-chat>`'s events): the call, and `respond` for a page that answers it its own way. */
export interface ToolCallDetail {
  name: string;
  input: Record<string, unknown>;
  toolUseId: string;
  /** The answer, when the event was canceled: the tool's value (JSON), or `{ error }`, a sentence for the agent. */
  respond(answer: unknown): void;
}

/**
 * The tools the page gives the chat (docs/elements.md "Tools the page gives the chat"): hands their
 * declarations to the store, which offers them with each message, and answers each call that waits, once per
 * page: `svc-tool-call` first (a page that cancels it answers with `respond`), else the tool's handler
 * (`runPageTool`: after the visitor's Allow for a `confirm` tool; a throw, a timeout or a tool not on this page
 * answers a sentence), then `svc-tool-result`. A call still waiting when the chat comes back (a reload) is
 * answered then. Its row in the reply says what became of it in plain text, and is a status screen readers read.
 */
export class PageToolsController implements ReactiveController {
  /** The answer this page made to each call: made once, sent again only if the conversation is read again. */
  readonly #answers = new Map<string, Promise<ClientToolAnswer>>();
  /** The visitor's Allow or Deny a `confirm` call waits for. */
  readonly #asking = new Map<string, (allowed: boolean) => void>();
  #declared?: { tools?: PageTool[]; store?: ChatStore };

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  hostUpdate(): void {
    const { store, tools } = this.host;
    if (!store) return;
    if (this.#declared?.tools !== tools || this.#declared?.store !== store) {
      store.clientTools = tools?.length ? pageToolDeclarations(tools) : undefined;
      this.#declared = { tools, store };
    }
    // Not set yet: the page has not said which tools it gives (it may set them after the history came), so no
    // call is answered "not available" too soon; `[]` says it gives none.
    if (!tools) return;
    for (const call of store.pageToolCalls) {
      if (store.pageToolCall(call.toolUseId).phase === 'waiting') void this.#answer(store, call);
    }
  }

  async #answer(store: ChatStore, call: ClientToolCall): Promise<void> {
    store.markPageToolCall(call.toolUseId, 'running');
    let made = this.#answers.get(call.toolUseId);
    if (!made) {
      made = this.#run(store, call);
      this.#answers.set(call.toolUseId, made);
    }
    const answer = bounded(await made);
    const { name, toolUseId } = call;
    this.host.emit('svc-tool-result', { name, toolUseId, ...answer });
    // Only to the conversation of the call, while the chat shows it (not one deleted, not a new one meanwhile).
    if (store.pageToolCalls.some((c) => c.toolUseId === toolUseId)) await store.answerPageTool(toolUseId, answer);
  }

  #run(store: ChatStore, call: ClientToolCall): Promise<ClientToolAnswer> {
    const { name, input, toolUseId } = call;
    let respond!: (answer: ClientToolAnswer) => void;
    const responded = new Promise<ClientToolAnswer>((resolve) => {
      respond = resolve;
    });
    const event = this.host.emit(
      'svc-tool-call',
      {
        name,
        input,
        toolUseId,
        respond: (value) => respond(isError(value) ? { error: value.error } : pageToolAnswer(name, value)),
      },
      { cancelable: true },
    );
    if (event.defaultPrevented) return responded;
    return runPageTool(this.host.tools ?? [], call, {
      conversationId: store.conversationId ?? '',
      confirm: () => {
        store.markPageToolCall(toolUseId, 'asking');
        return new Promise((resolve) => this.#asking.set(toolUseId, resolve));
      },
    });
  }

  #decide(store: ChatStore, toolUseId: string, allowed: boolean): void {
    this.#asking.get(toolUseId)?.(allowed);
    this.#asking.delete(toolUseId);
    store.markPageToolCall(toolUseId, 'running');
  }

  /** The row of call `block`: running, asking the visitor (Allow / Deny), done, or not done. Text only. */
  row(block: ToolUseBlock): TemplateResult {
    const { store, chatLabels: labels } = this.host;
    const tool = this.host.tools?.find((t) => t.name === block.name);
    const title = tool?.title ?? block.name;
    const state = store?.pageToolCall(block.id) ?? { phase: 'waiting' };
    let said = labels.toolRunning(title);
    let buttons: TemplateResult | typeof nothing = nothing;
    if (state.phase === 'answered') {
      said = 'error' in state.answer ? labels.toolFailed(title) : (tool?.done ?? labels.toolInput(title));
    } else if (state.phase === 'dropped') said = labels.toolInput(title);
    else if (state.phase === 'asking' && store && this.#asking.has(block.id)) {
      said = typeof tool?.confirm === 'string' ? tool.confirm : labels.toolAsk(title);
      const decide = (allowed: boolean) => () => this.#decide(store, block.id, allowed);
      buttons = html`<span part="tool-call-actions" class="inline-form">
        <button part="tool-call-button tool-call-allow" type="button" @click=${decide(true)}>${labels.allowTool}</button>
        <button part="tool-call-button" type="button" @click=${decide(false)}>${labels.denyTool}</button>
      </span>`;
    }
    return html`<div part="tool-call-row"><span role="status">${said}</span>${buttons}</div>`;
  }
}

/** `{ error: "…" }` and nothing else: a host's way to say the tool could not run. */
function isError(value: unknown): value is { error: string } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'error' && typeof (value as { error: unknown }).error === 'string';
}

/** An error sentence within what the service takes (a handler's message may be long). */
function bounded(answer: ClientToolAnswer): ClientToolAnswer {
  return 'error' in answer ? { error: answer.error.slice(0, CLIENT_TOOL_LIMITS.errorLength) } : answer;
}
