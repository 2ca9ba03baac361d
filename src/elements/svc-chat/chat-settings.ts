import type { TokenProvider } from '../../client/auth.js';
import type { ChatClient } from '../../client/chat.js';
import type { PageTool } from '../../client/page-tools.js';
import { type PersistedChat, persistedChat } from '../../internal/persist.js';
import type { PlainProperty } from '../../internal/svc-plain-element.js';
import type { ChatLabels } from '../../labels/label-types.js';

/** A class of elements, as a mixin takes it (TypeScript asks a mixin's base for a constructor of any arguments). */
// biome-ignore lint/suspicious/noExplicitAny: the form TypeScript requires of a mixin's base class.
type ElementClass = abstract new (...args: any[]) => object;

/** `inline` fills its container; `launcher` is a floating button that opens a panel. */
export type ChatMode = 'inline' | 'launcher';

/**
 * The chat's settings, declared once: the properties, attributes and defaults `<svc-chat>` (plain DOM) and its
 * panel (`<svc-chat-panel>`, Lit) both have, mixed into each (`class SvcChat extends ChatSettingsMixin(…)`). The
 * launcher hands its panel every one of them (`handOverSettings`); the manifest reads them from here (their JSDoc
 * and `static properties`, as Lit's), and docs/elements.md's table of `<svc-chat>`'s attributes and properties is
 * made from the manifest (`npm run manifest`).
 */
export function ChatSettingsMixin<Base extends ElementClass>(base: Base) {
  abstract class ChatSettingsElement extends base {
    static properties: Record<string, PlainProperty> = {
      baseUrl: { attribute: 'base-url' },
      agentId: { attribute: 'agent-id' },
      agentIds: { attribute: 'agent-ids' },
      conversationId: { attribute: 'conversation-id' },
      workspace: {},
      token: {},
      tokenEndpoint: { attribute: 'token-endpoint' },
      tokenCredentials: { attribute: 'token-credentials' },
      signIn: { attribute: 'sign-in' },
      mode: { reflect: true },
      persist: {},
      persistSession: { attribute: 'persist-session', type: Boolean },
      heading: {},
      imageHosts: { attribute: 'image-hosts' },
      showThinking: { attribute: 'show-thinking', type: Boolean },
      accept: {},
      client: { attribute: false },
      tokenProvider: { attribute: false },
      labels: { attribute: false },
      agents: { attribute: false },
      tools: { attribute: false },
    };

    /**
     * The service's address.
     * @default the page's origin
     */
    declare baseUrl?: string;
    /** The agent of new conversations. */
    declare agentId?: string;
    /** Several agents, space or comma separated: a coordinator dispatches to each. */
    declare agentIds?: string;
    /** Shows this conversation. */
    declare conversationId?: string;
    /** Workspace slug, for `sign-in="sms"`. */
    declare workspace?: string;
    /** A session token (never a workspace key). */
    declare token?: string;
    /** The site's backend that answers `POST` with `{ token, expires_at }` (see Authentication). */
    declare tokenEndpoint?: string;
    /**
     * Whether the `token-endpoint` request carries the page's cookies (fetch's `credentials`). `include` for an
     * endpoint of another origin that knows the visitor by a cookie: it must answer with
     * `Access-Control-Allow-Origin: <the page's origin>` and `Access-Control-Allow-Credentials: true` (the demo's
     * `/demo/token` does).
     * @default `same-origin`
     */
    declare tokenCredentials?: 'omit' | 'same-origin' | 'include';
    /** SMS sign-in. */
    declare signIn?: 'sms';
    /**
     * `inline` fills its container; `launcher` is a floating button that opens a panel (full screen under 520 px
     * wide).
     */
    mode: ChatMode = 'inline';
    /**
     * Present: the conversation continues after a reload (its id in `localStorage`), and in the same tab the
     * launcher's panel opens again if it was open, with the text the visitor had not sent (`sessionStorage`). A
     * value names the slot, so two chats on one site keep separate conversations.
     */
    declare persist?: string;
    /** Keeps an SMS visitor's session in `sessionStorage` (opt-in). */
    persistSession = false;
    /**
     * The header's title.
     * @default the `title` label
     */
    declare heading?: string;
    /**
     * Hosts images in replies and in the visitor's own image parts may load from besides this page's and the
     * service's: `host` (any port), `host:port`, or `*` for any, space or comma separated; others become links.
     * Images from any host are an exfiltration channel for a prompt-injected reply.
     */
    declare imageHosts?: string;
    /** Shows the agents' thinking above their replies, collapsed (the demo agent's `/think`). */
    showThinking = false;
    /**
     * Kinds of files visitors may attach, as a file input's `accept` (`image/*,.pdf`).
     * @default any kind
     */
    declare accept?: string;
    /** A ready client: its `chat` part is used as it is. */
    declare client?: { chat: ChatClient };
    /** Returns a fresh session token, or `{ token, expires_at }`, from the site's backend. */
    declare tokenProvider?: TokenProvider;
    /** Overrides of any text, in any language (see `EN_LABELS`, or `await loadLanguage('ar')`). */
    declare labels?: Partial<ChatLabels>;
    /** Names and avatars of agents by id; by default the name each record carries. */
    declare agents?: Record<string, { name: string; avatar?: string }>;
    /**
     * Tools the page gives the chat: `[{ name, description, parameters, handler, confirm? }]`, offered to the
     * agent with each message; a call runs `handler` (after the visitor's Allow, with `confirm`) and its value
     * goes back to the agent (docs/elements.md "Tools the page gives the chat").
     */
    declare tools?: PageTool[];
  }
  return ChatSettingsElement;
}

/** The chat's settings, by name: what an element with {@link ChatSettingsMixin} has besides an element's own. */
export type ChatSettings = Omit<InstanceType<ReturnType<typeof ChatSettingsMixin<ElementClass>>>, keyof object>;
type SettingName = keyof ChatSettings;

/** Every setting's name: the properties {@link ChatSettingsMixin} declares, read from a class it makes once. */
const SETTING_NAMES = Object.keys(ChatSettingsMixin(Object).properties) as SettingName[];

/** Gives `to` the value `from` has of each setting: `<svc-chat>` hands its panel the chat's settings. */
export function handOverSettings(from: ChatSettings, to: ChatSettings): void {
  for (const name of SETTING_NAMES) handOver(from, to, name);
}

function handOver<Name extends SettingName>(from: ChatSettings, to: ChatSettings, name: Name): void {
  to[name] = from[name];
}

/** The agents of new conversations, from `agent-ids` (space or comma separated) or `agent-id`. */
export function targetAgentIds({ agentIds, agentId }: ChatSettings): string[] | undefined {
  const ids = (agentIds ?? agentId ?? '').split(/[\s,]+/).filter(Boolean);
  return ids.length ? ids : undefined;
}

/**
 * Where `persist` keeps the conversation of a chat with these settings (`which`: the one shown, or the one
 * before the visitor started a new one), and for the tab whether its panel is open, the visitor's unsent
 * text and the outbox (messages not sent yet); none without `persist`.
 */
export function persistedConversation(
  settings: ChatSettings,
  which: 'shown' | 'previous' | 'open' | 'draft' | 'outbox' = 'shown',
): PersistedChat | undefined {
  const { persist } = settings;
  if (persist === undefined || persist === null) return undefined;
  const slot = persist || settings.baseUrl || location.origin;
  return persistedChat(
    `${slot}|${targetAgentIds(settings)?.join(',') ?? ''}${which === 'shown' ? '' : `|${which}`}`,
    which === 'open' || which === 'draft' || which === 'outbox',
  );
}
