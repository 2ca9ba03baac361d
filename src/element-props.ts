// Generated from custom-elements.json by scripts/element-props.mjs (`npm run manifest`): do not edit.
import type { SvcConnectorSetup } from './cards/svc-connector-setup.js';
import type { SvcInfoCollect } from './cards/svc-info-collect.js';
import type { SvcPaymentGate } from './cards/svc-payment-gate.js';
import type { SvcChat } from './elements/svc-chat/svc-chat.js';
import type { SvcMarkdown } from './elements/svc-markdown/svc-markdown.js';
import type { SvcSmsSignIn } from './elements/svc-sms-sign-in/svc-sms-sign-in.js';

/**
 * Each element's attributes (by their names: what a server renders), its settable properties and its events as
 * `on` + the event's name (React 19 and Preact add such a prop as a listener of that event), by tag.
 * `@svc/agent-sdk/react` gives them to React's JSX; a Preact or Solid project extends its own
 * `IntrinsicElements` with them (docs/elements.md).
 */
export interface SvcElementProps {
  'svc-chat': {
    /** Service address; default: this page's origin. */
    'base-url'?: SvcChat['baseUrl'];
    /** The agent of new conversations. */
    'agent-id'?: SvcChat['agentId'];
    /** Several agents of new conversations, space or comma separated (a coordinator dispatches to each). */
    'agent-ids'?: SvcChat['agentIds'];
    /** Shows this conversation instead of starting a new one. */
    'conversation-id'?: SvcChat['conversationId'];
    /** Workspace slug, for `sign-in="sms"`. */
    workspace?: SvcChat['workspace'];
    /** A session token (never a workspace key). */
    token?: SvcChat['token'];
    /** URL of the site's backend that answers `POST` with `{ token, expires_at }`. */
    'token-endpoint'?: SvcChat['tokenEndpoint'];
    /**
     * Whether the `token-endpoint` request carries the page's cookies (fetch's `credentials`: `omit`,
     * `same-origin`, the default, or `include` for an endpoint of another origin that knows the visitor by a
     * cookie; it must answer CORS with credentials).
     */
    'token-credentials'?: SvcChat['tokenCredentials'];
    /** `sms`: visitors sign in with a code sent by SMS. */
    'sign-in'?: SvcChat['signIn'];
    mode?: SvcChat['mode'];
    theme?: SvcChat['theme'];
    /**
     * Present: the conversation continues after a page reload (its id is kept in `localStorage`). A value
     * names the slot, so two chats on one site keep separate conversations.
     */
    persist?: SvcChat['persist'];
    /** Also keeps an SMS-signed-in visitor's session token in `sessionStorage` (opt-in). */
    'persist-session'?: SvcChat['persistSession'];
    /** The header's title; default: the `title` label. */
    heading?: SvcChat['heading'];
    /**
     * Hosts images in replies may load from besides this page's and the service's, space or comma separated:
     * `host` (any port), `host:port`, or `*` for any host. Images from other hosts show as links.
     */
    'image-hosts'?: SvcChat['imageHosts'];
    /** The launcher's panel is open. Use `open()` and `close()`. */
    open?: SvcChat['opened'];
    /** Shows the agents' thinking (collapsed) above their replies. */
    'show-thinking'?: SvcChat['showThinking'];
    /** Kinds of files visitors may attach, as a file input's `accept` (`image/*,.pdf`); default: any kind. */
    accept?: SvcChat['accept'];
    /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
    lang?: SvcChat['lang'];
    /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
    dir?: SvcChat['dir'];
    /** Service address; default: this page's origin. */
    baseUrl?: SvcChat['baseUrl'];
    /** The agent of new conversations. */
    agentId?: SvcChat['agentId'];
    /** Several agents of new conversations, space or comma separated (a coordinator dispatches to each). */
    agentIds?: SvcChat['agentIds'];
    /** Shows this conversation instead of starting a new one. */
    conversationId?: SvcChat['conversationId'];
    /** URL of the site's backend that answers `POST` with `{ token, expires_at }`. */
    tokenEndpoint?: SvcChat['tokenEndpoint'];
    /**
     * Whether the `token-endpoint` request carries the page's cookies (fetch's `credentials`: `omit`,
     * `same-origin`, the default, or `include` for an endpoint of another origin that knows the visitor by a
     * cookie; it must answer CORS with credentials).
     */
    tokenCredentials?: SvcChat['tokenCredentials'];
    /** `sms`: visitors sign in with a code sent by SMS. */
    signIn?: SvcChat['signIn'];
    /** Also keeps an SMS-signed-in visitor's session token in `sessionStorage` (opt-in). */
    persistSession?: SvcChat['persistSession'];
    /**
     * Hosts images in replies may load from besides this page's and the service's, space or comma separated:
     * `host` (any port), `host:port`, or `*` for any host. Images from other hosts show as links.
     */
    imageHosts?: SvcChat['imageHosts'];
    /** The launcher's panel is open. Use `open()` and `close()`. */
    opened?: SvcChat['opened'];
    /** A ready client: its `chat` part is used as it is. */
    client?: SvcChat['client'];
    /** Returns a fresh session token (or `{ token, expires_at }`) from the site's backend. */
    tokenProvider?: SvcChat['tokenProvider'];
    /** Overrides of any label. */
    labels?: SvcChat['labels'];
    /** Design tokens applied to this chat (`{ colorPrimary: 'teal' }`). */
    tokens?: SvcChat['tokens'];
    /** Names and avatars of agents by id, for multi-agent conversations. */
    agents?: SvcChat['agents'];
    /** Shows the agents' thinking (collapsed) above their replies. */
    showThinking?: SvcChat['showThinking'];
    /** The chat can be used; `detail: { conversationId }`. */
    'onsvc-ready'?: (event: GlobalEventHandlersEventMap['svc-ready']) => void;
    /** A visitor signed in by SMS; `detail: { user_id, expires_at }` (never the token). */
    'onsvc-signed-in'?: (event: GlobalEventHandlersEventMap['svc-signed-in']) => void;
    /** The service stored a message; `detail: { conversationId, text, result }`. */
    'onsvc-message-sent'?: (event: GlobalEventHandlersEventMap['svc-message-sent']) => void;
    /** A reply ended, and the chat shows it; `detail: { conversationId, text, subtype, error? }`. */
    'onsvc-turn-complete'?: (event: GlobalEventHandlersEventMap['svc-turn-complete']) => void;
    /** The visitor rated a reply 👍/👎 (and maybe said why), and the service stored it; `detail: { conversationId, messageId, agentId, rating, reason, created_at, updated_at }`. */
    'onsvc-feedback'?: (event: GlobalEventHandlersEventMap['svc-feedback']) => void;
    /** Something failed (also: the service at `base-url` does not answer); `detail: { message, status? }`. */
    'onsvc-error'?: (event: GlobalEventHandlersEventMap['svc-error']) => void;
    /** The launcher's panel opened. */
    'onsvc-open'?: (event: GlobalEventHandlersEventMap['svc-open']) => void;
    /** The launcher's panel closed. */
    'onsvc-close'?: (event: GlobalEventHandlersEventMap['svc-close']) => void;
  };
  'svc-markdown': {
    /** True while a reply streams in (between the first `append` and `finish`). Reflected as `streaming`. */
    streaming?: SvcMarkdown['streaming'];
    /**
     * Hosts images may load from besides the page's own (attribute `image-hosts`, space or comma separated:
     * `host` on any port, `host:port`, or `*` for any host). Images from other hosts become links.
     */
    'image-hosts'?: SvcMarkdown['imageHosts'];
    /** Label of the copy buttons. */
    'copy-label'?: SvcMarkdown['copyLabel'];
    /** Label a copy button shows for a moment after copying. */
    'copied-label'?: SvcMarkdown['copiedLabel'];
    /**
     * While text streams in, the least milliseconds between two renders; 0 renders at every animation frame. Each
     * render costs the page a frame's style, layout and paint however little it adds: the chat's replies render 30
     * times a second (docs/performance.md, paced streaming).
     */
    throttle?: SvcMarkdown['throttle'];
    /** Label of the copy buttons. */
    copyLabel?: SvcMarkdown['copyLabel'];
    /** Label a copy button shows for a moment after copying. */
    copiedLabel?: SvcMarkdown['copiedLabel'];
    /** The whole markdown text. Setting it renders it whole; it also grows with `append`. */
    text?: SvcMarkdown['text'];
    /**
     * Hosts images may load from besides the page's own (attribute `image-hosts`, space or comma separated:
     * `host` on any port, `host:port`, or `*` for any host). Images from other hosts become links.
     */
    imageHosts?: SvcMarkdown['imageHosts'];
    /** A code block was copied to the clipboard; `detail: { text }`. */
    'onsvc-copy'?: (event: GlobalEventHandlersEventMap['svc-copy']) => void;
  };
  'svc-sms-sign-in': {
    /** Service address; default: this page's origin. */
    'base-url'?: SvcSmsSignIn['baseUrl'];
    /** The workspace the visitor joins. */
    workspace?: SvcSmsSignIn['workspace'];
    /** `light`, `dark` or `auto`; unset inside `<svc-chat>`, which themes it. */
    theme?: SvcSmsSignIn['theme'];
    /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
    lang?: SvcSmsSignIn['lang'];
    /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
    dir?: SvcSmsSignIn['dir'];
    /** Service address; default: this page's origin. */
    baseUrl?: SvcSmsSignIn['baseUrl'];
    /** Overrides of any label. */
    labels?: SvcSmsSignIn['labels'];
    /**
     * Answers the service's challenge when `svc-sms-challenge` was not: shows the site's CAPTCHA (in the
     * `challenge` slot) and resolves with its token.
     */
    challenge?: SvcSmsSignIn['challenge'];
    /** The visitor signed in; `detail: { token, user_id, expires_at }`. */
    'onsvc-signed-in'?: (event: GlobalEventHandlersEventMap['svc-signed-in']) => void;
    /** Near its daily cap the service asks for the operator's challenge (428) before it sends a code: `detail: { phone, respond(answer) }`; call `respond` while handling the event, with the CAPTCHA's token or a promise of it, and the code is asked for again with it, once. Not answered here, `challenge` answers; neither, the visitor is told the site cannot send a code now. */
    'onsvc-sms-challenge'?: (event: GlobalEventHandlersEventMap['svc-sms-challenge']) => void;
  };
  'svc-connector-setup': {
    /** The card was answered (e.g. seen in history). */
    answered?: SvcConnectorSetup['answered'];
    /** The conversation the card belongs to, when it is used alone with `client`. */
    'conversation-id'?: SvcConnectorSetup['conversationId'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcConnectorSetup['theme'];
    /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
    lang?: SvcConnectorSetup['lang'];
    /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
    dir?: SvcConnectorSetup['dir'];
    /** The card (`setup_connector` tool call). */
    request?: SvcConnectorSetup['request'];
    /** After saving, tell the agent with a card-action message so it retries. */
    notify?: SvcConnectorSetup['notify'];
    /** Overrides of any label. */
    labels?: SvcConnectorSetup['labels'];
    /** The conversation the card belongs to, when it is used alone with `client`. */
    conversationId?: SvcConnectorSetup['conversationId'];
    /** A client (e.g. an `SvcClient`) for a card used alone; inside `<svc-chat>` the chat's is used. */
    client?: SvcConnectorSetup['client'];
    /** Before the credentials are stored; cancelable. `detail: { connectorTypeId, fields }` (the names of the fields filled in, never their values). */
    'onsvc-connector-submit'?: (event: GlobalEventHandlersEventMap['svc-connector-submit']) => void;
    /** The credentials were stored; `detail: { connectorTypeId, fields }`. */
    'onsvc-connector-saved'?: (event: GlobalEventHandlersEventMap['svc-connector-saved']) => void;
  };
  'svc-info-collect': {
    /** The card was answered (e.g. seen in history), even when `answer` is unknown. */
    answered?: SvcInfoCollect['answered'];
    /** The conversation the card belongs to, when it is used alone with `client`. */
    'conversation-id'?: SvcInfoCollect['conversationId'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcInfoCollect['theme'];
    /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
    lang?: SvcInfoCollect['lang'];
    /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
    dir?: SvcInfoCollect['dir'];
    /** The card (`collect_info` tool call). */
    request?: SvcInfoCollect['request'];
    /** The answer given, to summarize. */
    answer?: SvcInfoCollect['answer'];
    /** Overrides of any label. */
    labels?: SvcInfoCollect['labels'];
    /** The conversation the card belongs to, when it is used alone with `client`. */
    conversationId?: SvcInfoCollect['conversationId'];
    /** A client (e.g. an `SvcClient`) for a card used alone; inside `<svc-chat>` the chat's is used. */
    client?: SvcInfoCollect['client'];
    /** Before the answer is sent; cancelable (a host that cancels handles it itself). `detail: { toolUseId, action: 'submit' | 'skip', values? }`. */
    'onsvc-info-submit'?: (event: GlobalEventHandlersEventMap['svc-info-submit']) => void;
  };
  'svc-payment-gate': {
    /** The status the conversation reported (its `payment_gate_resolution`); `pending` until one arrives. */
    status?: SvcPaymentGate['status'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcPaymentGate['theme'];
    /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
    lang?: SvcPaymentGate['lang'];
    /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
    dir?: SvcPaymentGate['dir'];
    /** The order (`payment_gate` record's `payment`). */
    payment?: SvcPaymentGate['payment'];
    /** Overrides of any label. */
    labels?: SvcPaymentGate['labels'];
    /** A client (e.g. an `SvcClient`) for a card used alone; inside `<svc-chat>` the chat's is used. */
    client?: SvcPaymentGate['client'];
    /** Before the pay page opens; cancelable (the page opens nothing when canceled). `detail: { orderId, payUrl, amountCny }`. */
    'onsvc-payment-open'?: (event: GlobalEventHandlersEventMap['svc-payment-open']) => void;
    /** The status shown changed; `detail: { orderId, status }`. */
    'onsvc-payment-status'?: (event: GlobalEventHandlersEventMap['svc-payment-status']) => void;
  };
}
