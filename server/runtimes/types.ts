import type {
  AgentStatus,
  ChatRawEvent,
  ChatStreamRecord,
  ClientToolDeclaration,
  ContentBlock,
  FileAttachment,
  MessagePart,
  PaymentGatePayload,
  PaymentResolution,
  UploadedFile,
} from '@svc/agent-sdk/protocol';
import { cnyFormat } from '@svc/agent-sdk/protocol';
import type { AgentRow } from '../store/agent-rows.js';

/**
 * What an agent runtime is given for one turn. A runtime is the only part that knows how an agent
 * thinks: `echo` and `demo` here; a model-backed runtime plugs in the same way (see `all-runtimes.ts`).
 */
export interface TurnInput {
  conversationId: string;
  turnId: string;
  /** The caller: a user id, or for training the operator (`owner:<user id>` or `key:<key id>`). */
  userId: string;
  /** The agent this runtime speaks for. */
  agent: AgentRow;
  /** Every agent of the agent's workspace, itself included (for delegation). */
  workspaceAgents: AgentRow[];
  /** The user's message text (may be empty with `parts` or `toolAction`). */
  text: string;
  parts: MessagePart[];
  /** Extra data, e.g. the answer of a card (`infoCollect`, `connectorSetup`). */
  metadata?: Record<string, unknown>;
  /** The message answers a card: handle it, it is not ordinary chat. */
  toolAction: boolean;
  senderName?: string;
  /**
   * Session-level external-tool credentials, by MCP server name, for the servers of the agents the caller
   * addressed; a delegated agent gets only those of its servers at the same URL. Held for this turn only:
   * never stored or logged.
   */
  mcpTokens: Record<string, string>;
  /**
   * The tools the page gave the chat for this turn (docs/protocol.md "Tools the page gives the chat"): a runtime
   * calls one with a `tool_use` block marked `client: true` and ends its part of the turn; the page's answer is
   * the next message (`toolAction`, `metadata.clientTool`). A call of any other name is not marked (ActiveTurn).
   */
  clientTools: ClientToolDeclaration[];
  /** Earlier entries of the conversation, oldest first (no deltas or status records). */
  history: ChatStreamRecord[];
  /** The origin the caller used, e.g. `http://127.0.0.1:8787`, for links the agent hands out. */
  baseUrl: string;
  /**
   * Set for the turn that follows a payment: the visitor paid or canceled this order of the agent's (its
   * `payment_gate_resolution` ends `history`). There is no user message then: `text` is empty.
   */
  payment?: PaymentResolution;
  /** Set when another agent handed this task over with a `delegate` tool call. */
  delegatedBy?: AgentRow;
  /** The agent's workspace takes people of its staff into conversations: `TurnIO.handoff` asks for one. */
  operators: boolean;
  /**
   * Set for the turn that follows a handoff nobody took in time (its `handoff_unanswered` record ends `history`):
   * runtimes/nobody-there.ts speaks for the agent, whatever its runtime. There is no user message: `text` is empty.
   */
  unanswered?: { waitedSeconds: number };
}

/** A reply message whose text is streamed as `assistant_delta` records. */
export interface TextStream {
  readonly messageId: string;
  /** Appends text (one delta record). */
  write(text: string): void;
  /** Ends the message with one `assistant` record: `before`, the streamed text, then `after`. */
  end(blocks?: { before?: ContentBlock[]; after?: ContentBlock[] }): void;
}

/** What `paymentGate` takes: an amount of whole fen from CN¥0.01 to CN¥100,000, open for up to 7 days. */
export const PAYMENT_LIMITS = { minCny: 0.01, maxCny: 100_000, maxExpirySeconds: 7 * 24 * 60 * 60 } as const;

/**
 * An amount as the service writes it in its English sentences and pay page, by the payment card's rule:
 * `CN¥9.90` (`¥` alone reads as yen).
 */
export const writtenCny = (amountCny: number) => cnyFormat('en').format(amountCny);

/**
 * Why a payment request cannot become an order (docs/protocol.md "Payments"), in a sentence; undefined when
 * it can. The demo runtime answers `/pay` with it, and PaymentOrders.create refuses with it.
 */
export function paymentProblem(amountCny: number, expiresInSeconds: number): string | undefined {
  const { minCny, maxCny, maxExpirySeconds } = PAYMENT_LIMITS;
  if (!Number.isFinite(amountCny) || amountCny < minCny || amountCny > maxCny) {
    return `The amount must be from ${writtenCny(minCny)} to ${writtenCny(maxCny)}.`;
  }
  if (Number(amountCny.toFixed(2)) !== amountCny) return 'An amount has at most 2 decimal places (whole fen).';
  if (!(expiresInSeconds > 0 && expiresInSeconds <= maxExpirySeconds)) {
    return `An order stays open for at most 7 days (${maxExpirySeconds} seconds).`;
  }
  return undefined;
}

/** A file stored by this service; its bytes are read on demand. */
export interface StoredFile {
  filename: string;
  mimeType: string;
  size: number;
  read(): Buffer;
}

export interface PaymentRequest {
  /** At most 2 decimal places, within PAYMENT_LIMITS. */
  amountCny: number;
  title: string;
  description?: string;
  expiresInSeconds: number;
}

/**
 * How a runtime speaks during its turn. Every call stores a record at once and publishes it to the open
 * streams. Once the turn has ended (interrupted), writes are ignored and `paymentGate` and `delegate`
 * throw the abort reason, so a runtime that is slow to notice `signal` cannot write into the next turn.
 */
export interface TurnIO {
  /** Aborted when the user interrupts the turn: stop promptly. */
  readonly signal: AbortSignal;
  /** `thinking` and `idle` are set around the turn and `typing` by streamed text; set `tool` yourself. */
  status(status: AgentStatus): void;
  /** Starts a streamed text message. The agent's first message carries the `msgId` announced by send. */
  streamText(): TextStream;
  /** Sends a complete message (cards, images, tool calls) and returns its id. */
  message(content: ContentBlock[]): string;
  /** Announces a file the agent wrote into the conversation's folder (`workspaceDir()`). */
  attachment(file: FileAttachment): void;
  /** Creates a payment order for the caller and shows its card. */
  paymentGate(request: PaymentRequest): PaymentGatePayload;
  /** Any other raw event of this agent. */
  emit(raw: ChatRawEvent): void;
  /**
   * Asks for a person of the workspace's staff (only where `TurnInput.operators`): a `handoff_requested` record after
   * what the agent said so far, then the agents answer nothing until a person has come and gone, or nobody came.
   * The turn should end after it. Nothing happens when a person is asked for or holds the conversation already.
   */
  handoff(reason?: string): void;
  /** Runs another agent of the workspace on `task` inside this turn; its records carry its own agentId. */
  delegate(agentId: string, task: string): Promise<void>;
  /** The conversation's agent workspace folder (created on first use). */
  workspaceDir(): string;
  /** Stores a file readable by URL (e.g. an image the reply shows). */
  upload(file: { filename: string; mimeType: string; data: Buffer }): Promise<UploadedFile>;
  /** The caller's stored credentials for a connector type, if any. */
  connectorCredentials(connectorTypeId: string): Promise<Record<string, string> | undefined>;
  /**
   * The caller's stored credentials for this agent's MCP server at `url`: saved for that server (its
   * workspace, origin and path) from its card, never those of another server of the same name.
   */
  serverCredentials(url: string): Promise<Record<string, string> | undefined>;
  /** A file uploaded to this service, found by its URL (`…/files/f_…/name`); undefined for any other URL. */
  readUpload(url: string): Promise<StoredFile | undefined>;
  /** One line to the service's log, naming the agent (never a token or a key). */
  log(line: string): void;
  /** Counts the turn's requests to a model for the service's metrics. */
  readonly model: ModelMeter;
}

/** Why a request to a model failed: the connection, silence, a cut stream, or the endpoint's refusal by kind. */
export type ModelFailure = 'connection' | 'idle' | 'cut' | 'auth' | 'rate_limited' | 'server' | 'refused' | 'too_large';

/** What `GET /metrics` counts of a runtime's model requests. */
export interface ModelMeter {
  /** A request's answer began to stream `seconds` after it was sent. */
  answered(seconds: number): void;
  failed(kind: ModelFailure): void;
}

/**
 * An agent runtime. `run` resolves when the agent has finished its part of the turn; a throw ends the turn
 * with an error: a ReplyFailure's sentence is what the visitor reads, anything else is logged and the visitor
 * reads a plain sentence of the turn's own (TURN_FAILED.unexpected).
 */
export interface Runtime {
  run(input: TurnInput, io: TurnIO): Promise<void>;
}

/**
 * How a runtime ends its turn with a sentence of its own: the message is the `result.error` the visitor reads,
 * so it is one plain sentence for them (no command, id, setting or upstream detail). What the operator needs
 * besides goes in `cause`, which only the log shows.
 */
export class ReplyFailure extends Error {
  override name = 'ReplyFailure';
}

/** `90000` → `90 s`, `600000` → `10 minutes`. */
const formatMs = (ms: number): string =>
  ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}` : `${ms / 1000} s`;

/**
 * What the visitor reads (`result.error`) when a turn fails other than by a model's request (those are the model
 * runtime's MODEL_FAILED): the turn's own failures and the runtimes' alike, one plain sentence each, while the log
 * says what happened (the error, which agent, which runtime). Each is a sentence, or a sentence of the number it
 * names.
 */
export const TURN_FAILED = {
  /** Whatever else a runtime or the turn threw. */
  unexpected: 'Something went wrong on our side while answering. Please try again.',
  agentGone: 'This assistant is no longer available.',
  /** The agent cannot run as set up (the log says which setting is missing). */
  notSetUp: 'This assistant is not set up to answer yet.',
  handover: 'The assistant this was to be handed to is not available.',
  notStored: 'the reply could not be stored',
  /** The turn's records outgrew their limit (a whole number of MB, docs/protocol.md "Limits"). */
  tooLong: (bytes: number) => `the reply grew past ${bytes / 2 ** 20} MB and was stopped`,
  /** A model turn's time limit (an agent's `turn_timeout_ms`). */
  timeLimit: (ms: number) => `The reply took longer than ${formatMs(ms)} and was stopped.`,
  toolLoop: 'The model kept calling tools without answering, so the reply was stopped.',
} as const;
