// Generated from custom-elements.json by scripts/element-props.mjs (`npm run manifest`): do not edit.
import type { SvcConnectorSetup } from './cards/svc-connector-setup.js';
import type { SvcInfoCollect } from './cards/svc-info-collect.js';
import type { SvcPaymentGate } from './cards/svc-payment-gate.js';
import type { SvcChat } from './elements/svc-chat/svc-chat.js';
import type { SvcInbox } from './elements/svc-inbox/svc-inbox.js';
import type { SvcMarkdown } from './elements/svc-markdown/svc-markdown.js';
import type { SvcSmsSignIn } from './elements/svc-sms-sign-in/svc-sms-sign-in.js';

/**
 * Each element's attributes (by their names: what a server renders), its settable properties and its events as
 * `on` + the event's name (React 19 and Preact add such a prop as a listener of that event), by tag.
 * `@svc/agent-sdk/react` gives them to React's JSX; a Preact or Solid project extends its own
 * `IntrinsicElements` with them (docs/elements.md).
 */
export interface SvcElementProps {
  'svc-connector-setup': {
    /** The conversation the card belongs to, when it is used alone with `client`. */
    'conversation-id'?: SvcConnectorSetup['conversationId'];
    /**
     * The card was answered (e.g. seen in history), even when the answer is unknown.
     * @default false
     */
    answered?: SvcConnectorSetup['answered'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcConnectorSetup['theme'];
    /**
     * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
     * anything else English (see Languages and right to left).
     * @default the page's `lang`
     */
    lang?: SvcConnectorSetup['lang'];
    /**
     * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
     * @default the direction of `lang`, else the page's
     */
    dir?: SvcConnectorSetup['dir'];
    /** The card (`setup_connector` tool call). */
    request?: SvcConnectorSetup['request'];
    /**
     * After saving, tell the agent with a card-action message so it retries.
     * @default true
     */
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
    /** The conversation the card belongs to, when it is used alone with `client`. */
    'conversation-id'?: SvcInfoCollect['conversationId'];
    /**
     * The card was answered (e.g. seen in history), even when the answer is unknown.
     * @default false
     */
    answered?: SvcInfoCollect['answered'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcInfoCollect['theme'];
    /**
     * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
     * anything else English (see Languages and right to left).
     * @default the page's `lang`
     */
    lang?: SvcInfoCollect['lang'];
    /**
     * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
     * @default the direction of `lang`, else the page's
     */
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
    /**
     * The status the conversation reported (its `payment_gate_resolution`); `pending` until one arrives.
     * @default 'pending'
     */
    status?: SvcPaymentGate['status'];
    /**
     * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
     * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
     */
    theme?: SvcPaymentGate['theme'];
    /**
     * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
     * anything else English (see Languages and right to left).
     * @default the page's `lang`
     */
    lang?: SvcPaymentGate['lang'];
    /**
     * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
     * @default the direction of `lang`, else the page's
     */
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
  'svc-chat': {
    /**
     * `auto` follows the system.
     * @default 'light'
     */
    theme?: SvcChat['theme'];
    /**
     * The launcher's panel is open (use `open()` and `close()`).
     * @default false
     */
    open?: SvcChat['opened'];
    /**
     * The service's address.
     * @default the page's origin
     */
    'base-url'?: SvcChat['baseUrl'];
    /** The agent of new conversations. */
    'agent-id'?: SvcChat['agentId'];
    /** Several agents, space or comma separated: a coordinator dispatches to each. */
    'agent-ids'?: SvcChat['agentIds'];
    /** Shows this conversation. */
    'conversation-id'?: SvcChat['conversationId'];
    /** Workspace slug, for `sign-in="sms"`. */
    workspace?: SvcChat['workspace'];
    /** A session token (never a workspace key). */
    token?: SvcChat['token'];
    /** The site's backend that answers `POST` with `{ token, expires_at }` (see Authentication). */
    'token-endpoint'?: SvcChat['tokenEndpoint'];
    /**
     * Whether the `token-endpoint` request carries the page's cookies (fetch's `credentials`). `include` for an
     * endpoint of another origin that knows the visitor by a cookie: it must answer with
     * `Access-Control-Allow-Origin: <the page's origin>` and `Access-Control-Allow-Credentials: true` (the demo's
     * `/demo/token` does).
     * @default `same-origin`
     */
    'token-credentials'?: SvcChat['tokenCredentials'];
    /** SMS sign-in. */
    'sign-in'?: SvcChat['signIn'];
    /**
     * `inline` fills its container; `launcher` is a floating button that opens a panel (full screen under 520 px
     * wide).
     * @default 'inline'
     */
    mode?: SvcChat['mode'];
    /**
     * Present: the conversation continues after a reload (its id in `localStorage`), and in the same tab the
     * launcher's panel opens again if it was open, with the text the visitor had not sent (`sessionStorage`). A
     * value names the slot, so two chats on one site keep separate conversations.
     */
    persist?: SvcChat['persist'];
    /**
     * Keeps an SMS visitor's session in `sessionStorage` (opt-in).
     * @default false
     */
    'persist-session'?: SvcChat['persistSession'];
    /**
     * The header's title.
     * @default the `title` label
     */
    heading?: SvcChat['heading'];
    /**
     * Hosts images in replies and in the visitor's own image parts may load from besides this page's and the
     * service's: `host` (any port), `host:port`, or `*` for any, space or comma separated; others become links.
     * Images from any host are an exfiltration channel for a prompt-injected reply.
     */
    'image-hosts'?: SvcChat['imageHosts'];
    /**
     * Shows the agents' thinking above their replies, collapsed (the demo agent's `/think`).
     * @default false
     */
    'show-thinking'?: SvcChat['showThinking'];
    /**
     * Kinds of files visitors may attach, as a file input's `accept` (`image/*,.pdf`).
     * @default any kind
     */
    accept?: SvcChat['accept'];
    /**
     * Offers "Talk to a person" once a conversation has started: a person of the site's staff may take it over
     * (the workspace has operators; docs/elements.md, a person in the conversation).
     * @default false
     */
    handoff?: SvcChat['handoff'];
    /**
     * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
     * anything else English (see Languages and right to left).
     * @default the page's `lang`
     */
    lang?: SvcChat['lang'];
    /**
     * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
     * @default the direction of `lang`, else the page's
     */
    dir?: SvcChat['dir'];
    /**
     * The launcher's panel is open (use `open()` and `close()`).
     * @default false
     */
    opened?: SvcChat['opened'];
    /** Design tokens for this chat, e.g. `{ colorPrimary: 'teal' }`. */
    tokens?: SvcChat['tokens'];
    /**
     * The service's address.
     * @default the page's origin
     */
    baseUrl?: SvcChat['baseUrl'];
    /** The agent of new conversations. */
    agentId?: SvcChat['agentId'];
    /** Several agents, space or comma separated: a coordinator dispatches to each. */
    agentIds?: SvcChat['agentIds'];
    /** Shows this conversation. */
    conversationId?: SvcChat['conversationId'];
    /** The site's backend that answers `POST` with `{ token, expires_at }` (see Authentication). */
    tokenEndpoint?: SvcChat['tokenEndpoint'];
    /**
     * Whether the `token-endpoint` request carries the page's cookies (fetch's `credentials`). `include` for an
     * endpoint of another origin that knows the visitor by a cookie: it must answer with
     * `Access-Control-Allow-Origin: <the page's origin>` and `Access-Control-Allow-Credentials: true` (the demo's
     * `/demo/token` does).
     * @default `same-origin`
     */
    tokenCredentials?: SvcChat['tokenCredentials'];
    /** SMS sign-in. */
    signIn?: SvcChat['signIn'];
    /**
     * Keeps an SMS visitor's session in `sessionStorage` (opt-in).
     * @default false
     */
    persistSession?: SvcChat['persistSession'];
    /**
     * Hosts images in replies and in the visitor's own image parts may load from besides this page's and the
     * service's: `host` (any port), `host:port`, or `*` for any, space or comma separated; others become links.
     * Images from any host are an exfiltration channel for a prompt-injected reply.
     */
    imageHosts?: SvcChat['imageHosts'];
    /**
     * Shows the agents' thinking above their replies, collapsed (the demo agent's `/think`).
     * @default false
     */
    showThinking?: SvcChat['showThinking'];
    /** A ready client: its `chat` part is used as it is. */
    client?: SvcChat['client'];
    /** Returns a fresh session token, or `{ token, expires_at }`, from the site's backend. */
    tokenProvider?: SvcChat['tokenProvider'];
    /** Overrides of any text, in any language (see `EN_LABELS`, or `await loadLanguage('ar')`). */
    labels?: SvcChat['labels'];
    /** Names and avatars of agents by id; by default the name each record carries. */
    agents?: SvcChat['agents'];
    /**
     * Tools the page gives the chat: `[{ name, description, parameters, handler, confirm? }]`, offered to the
     * agent with each message; a call runs `handler` (after the visitor's Allow, with `confirm`) and its value
     * goes back to the agent (docs/elements.md "Tools the page gives the chat").
     */
    tools?: SvcChat['tools'];
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
    /** The agent called one of the page's `tools`; `detail: { name, input, toolUseId, respond }`. Cancel it (`preventDefault()`) to answer with `respond(value)` or `respond({ error })` instead of the tool's handler. */
    'onsvc-tool-call'?: (event: GlobalEventHandlersEventMap['svc-tool-call']) => void;
    /** A call of one of the page's `tools` was answered; `detail: { name, toolUseId, output }` or `{ name, toolUseId, error }`. */
    'onsvc-tool-result'?: (event: GlobalEventHandlersEventMap['svc-tool-result']) => void;
    /** The launcher's panel opened. */
    'onsvc-open'?: (event: GlobalEventHandlersEventMap['svc-open']) => void;
    /** The launcher's panel closed. */
    'onsvc-close'?: (event: GlobalEventHandlersEventMap['svc-close']) => void;
  };
  'svc-inbox': {
    /**
     * The service's address.
     * @default the page's origin
     */
    'base-url'?: SvcInbox['baseUrl'];
    /** An operator's session token (`ot_…`). */
    token?: SvcInbox['token'];
    /** The site's backend that answers `POST` with an operator's `{ token, expires_at }`. */
    'token-endpoint'?: SvcInbox['tokenEndpoint'];
    /**
     * The service's address.
     * @default the page's origin
     */
    baseUrl?: SvcInbox['baseUrl'];
    /** The site's backend that answers `POST` with an operator's `{ token, expires_at }`. */
    tokenEndpoint?: SvcInbox['tokenEndpoint'];
    /** Returns a fresh operator token, or `{ token, expires_at }`, from the site's backend. */
    tokenProvider?: SvcInbox['tokenProvider'];
    /** Overrides of any text (see `INBOX_LABELS`). */
    labels?: SvcInbox['labels'];
    /** The queue changed (at once, then after every change); `detail: { waiting, mine, missed }`. */
    'onsvc-queue'?: (event: GlobalEventHandlersEventMap['svc-queue']) => void;
    /** This operator took, released or closed a conversation; `detail: { conversationId, state, operator?, at }`. */
    'onsvc-handoff'?: (event: GlobalEventHandlersEventMap['svc-handoff']) => void;
    /** A request failed; `detail: { message, status? }` (the service's sentence, e.g. another person took the conversation first). */
    'onsvc-error'?: (event: GlobalEventHandlersEventMap['svc-error']) => void;
  };
  'svc-markdown': {
    /**
     * True while a reply streams in (between the first `appendText` and `finish`). Reflected as `streaming`.
     * @default false
     */
    streaming?: SvcMarkdown['streaming'];
    /**
     * Hosts images may load from besides the page's own (attribute `image-hosts`, space or comma separated:
     * `host` on any port, `host:port`, or `*` for any host). Images from other hosts become links.
     */
    'image-hosts'?: SvcMarkdown['imageHosts'];
    /**
     * Label of the copy buttons.
     * @default 'Copy'
     */
    'copy-label'?: SvcMarkdown['copyLabel'];
    /**
     * Label a copy button shows for a moment after copying.
     * @default 'Copied'
     */
    'copied-label'?: SvcMarkdown['copiedLabel'];
    /**
     * While text streams in, the least milliseconds between two renders; 0 renders at every animation frame. Each
     * render costs the page a frame's style, layout and paint however little it adds: the chat's replies render 30
     * times a second (docs/performance.md, paced streaming).
     * @default 0
     */
    throttle?: SvcMarkdown['throttle'];
    /**
     * Label of the copy buttons.
     * @default 'Copy'
     */
    copyLabel?: SvcMarkdown['copyLabel'];
    /**
     * Label a copy button shows for a moment after copying.
     * @default 'Copied'
     */
    copiedLabel?: SvcMarkdown['copiedLabel'];
    /** The whole markdown text. Setting it renders it whole; it also grows with `appendText`. */
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
    /**
     * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
     * anything else English (see Languages and right to left).
     * @default the page's `lang`
     */
    lang?: SvcSmsSignIn['lang'];
    /**
     * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
     * @default the direction of `lang`, else the page's
     */
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
}
