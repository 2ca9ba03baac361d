import type { IncomingHttpHeaders } from 'node:http';

/** One scripted response: a stream of text and tool calls, or an error status. */
export interface ModelStep {
  /** Text, or its pieces (one chunk each). */
  text?: string | string[];
  /** Tool calls; `arguments` as one string or as fragments sent in separate chunks. */
  toolCalls?: { name: string; arguments: string | string[] }[];
  finish?: string;
  /** Destroys the connection after the text, without a finish or `[DONE]`. */
  cut?: boolean;
  /** Sends nothing after the text and keeps the connection open. */
  stall?: boolean;
  /**
   * After the text, one event whose data line never ends: this many bytes, written as the client takes them;
   * `sent` says how many it took.
   */
  hugeLine?: number;
  sent?: number;
  /** Answers with this status and an `{ error }` body instead of a stream. */
  status?: number;
  headers?: Record<string, string>;
  error?: { message: string; type?: string; code?: string };
}

export interface ModelRequest {
  body: { model: string; messages: any[]; tools?: any[]; temperature?: number; max_tokens?: number; stream?: boolean };
  headers: IncomingHttpHeaders;
  /** When it arrived (`Date.now()`). */
  at: number;
  /** Resolves when the connection closes: true when the client closed it before the response ended. */
  closed: Promise<boolean>;
}

export interface ModelServer {
  /** The base URL, up to `/v1`. */
  url: string;
  requests: ModelRequest[];
  script(...steps: ModelStep[]): void;
  request(n: number): Promise<ModelRequest>;
  close(): Promise<void>;
}

export declare function startModelServer(options?: {
  respond?: (body: ModelRequest['body']) => ModelStep;
}): Promise<ModelServer>;
export declare function pieces(text: string, n?: number): string[];
export declare function conversationalReply(body: ModelRequest['body']): ModelStep;
