import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterMs, retryDelay } from '@svc/agent-sdk/protocol';
import type OpenAI from 'openai';
import { APIConnectionError, APIError } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { type ModelFailure, type ModelMeter, ReplyFailure } from '../types.js';

/**
 * What the visitor reads when the model fails them (a ReplyFailure each): one plain sentence, no upstream
 * detail; the log has the status and the endpoint's message.
 */
export const MODEL_FAILED = {
  cut: 'The connection to the model broke off in the middle of the reply. Please try again.',
  unreachable: 'The model could not be reached. Please try again later.',
  credentials: 'The model refused this service’s credentials.',
  /** A 404: the endpoint does not offer the agent's `model`. */
  missing: 'The model this assistant uses is not available.',
  busy: 'The model is busy. Please try again in a moment.',
  busyFor: (ms: number) => `The model is busy. Please try again in ${seconds(ms)}.`,
  trouble: 'The model is having trouble right now. Please try again in a moment.',
  refused: 'The model could not answer this request.',
  idle: (ms: number) => `The model sent nothing for ${seconds(ms)}, so the reply was stopped.`,
  /** A reply past UPSTREAM_BOUNDS. */
  tooLarge: 'The model sent more than this service accepts in one reply, so the reply was stopped.',
} as const;

/** A `retry-after` longer than this is not waited for: the turn ends at once and says when to try again. */
export const MAX_RETRY_AFTER_MS = 30_000;

export interface StepOptions {
  /** The turn's signal: aborting it (interrupt) aborts the request at once. */
  signal: AbortSignal;
  /** The stream is given up when nothing arrives for this long. */
  idleMs: number;
  retries: number;
  onText(text: string): void;
  /** One line to the service's log: the upstream detail of every failure. */
  log(line: string): void;
  meter: ModelMeter;
}

export interface StepCall {
  name: string;
  /** The JSON arguments, joined from their fragments. */
  arguments: string;
}

export interface Step {
  text: string;
  calls: StepCall[];
  finishReason: string;
}

/**
 * One streamed chat completion. Text is handed to `onText` as it arrives; tool calls are joined from their
 * fragments. A request refused with 408, 409, 429 or 5xx, or that could not connect, is retried (after its
 * `retry-after`, or with exponential backoff) as long as nothing has reached the visitor yet.
 *
 * The `openai` client's own retries are off (`maxRetries: 0`): its backoff sleep ignores the abort signal,
 * so a stop during a backoff would hold the request until the sleep ends, and it waits for any
 * `retry-after`, even an hour.
 */
export async function streamStep(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  o: StepOptions,
): Promise<Step> {
  for (let attempt = 0; ; attempt++) {
    const idle = new IdleTimer(o.idleMs);
    const signal = AbortSignal.any([o.signal, idle.signal]);
    let text = '';
    const calls: StepCall[] = [];
    let finishReason: string | undefined;
    const sent = performance.now();
    try {
      const stream = await client.chat.completions.create(body, { signal, maxRetries: 0 });
      o.meter.answered((performance.now() - sent) / 1000);
      idle.reset();
      for await (const chunk of stream) {
        idle.reset();
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const content = choice.delta?.content;
        if (content) {
          text += content;
          o.onText(content);
        }
        for (const fragment of choice.delta?.tool_calls ?? []) {
          calls[fragment.index] ??= { name: '', arguments: '' };
          const call = calls[fragment.index]!;
          call.name += fragment.function?.name ?? '';
          call.arguments += fragment.function?.arguments ?? '';
        }
        finishReason = choice.finish_reason ?? finishReason;
      }
      // A stream that ends without a finish reason was cut off (no `[DONE]` either, as a rule).
      if (!finishReason) throw new StreamCut();
      return { text, calls: calls.filter((c) => c.name), finishReason };
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason ?? err;
      o.meter.failed(idle.fired ? 'idle' : failureKind(err));
      const tooLarge = tooLargeOf(err);
      if (tooLarge) {
        o.log(`model reply too large: ${tooLarge.message}; the reply was stopped`);
        throw new ReplyFailure(MODEL_FAILED.tooLarge);
      }
      if (idle.fired) {
        o.log(`model sent nothing for ${o.idleMs} ms; the reply was stopped`);
        throw new ReplyFailure(MODEL_FAILED.idle(o.idleMs));
      }
      o.log(`model request failed (attempt ${attempt + 1}): ${failureOf(err)}`);
      const delay = text ? undefined : retryDelay(err, attempt, { ...UPSTREAM_RETRY, retries: o.retries });
      if (delay === undefined) throw new ReplyFailure(plainSentence(err, text !== ''));
      await sleep(delay, undefined, { signal: o.signal });
    } finally {
      idle.clear();
    }
  }
}

/**
 * What one reply of the model endpoint may take, checked as its bytes arrive, before the `openai` client
 * decodes them: its SSE decoder copies and rescans what it holds on every chunk until a line (and an event)
 * ends, so one endless line would hold the event loop for seconds per megabyte. An event (the lines up to a
 * blank line) is at most `eventBytes` (a chunk of a streamed completion takes a few hundred bytes), and the
 * whole reply at most `replyBytes` (a reply of the largest turn, LIMITS.turnBytes, in small deltas, with room).
 */
export const UPSTREAM_BOUNDS = { eventBytes: 1024 * 1024, replyBytes: 128 * 1024 * 1024 } as const;

/** A model reply over UPSTREAM_BOUNDS: not decoded further, not retried. */
export class UpstreamTooLarge extends Error {
  override name = 'UpstreamTooLarge';
}

/**
 * `fetch` for the `openai` client: the body of each answer passes through a counter that errors it (and so
 * cancels the request) once an event or the whole answer passes UPSTREAM_BOUNDS. Each byte is looked at once.
 */
export async function boundedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (!res.body) return res;
  return new Response(res.body.pipeThrough(sseBound(UPSTREAM_BOUNDS)), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

const LF = 0x0a;
const CR = 0x0d;

/** Counts the bytes of the current SSE event and of the whole stream, passing chunks through untouched. */
export function sseBound(bounds: { eventBytes: number; replyBytes: number }): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  let event = 0;
  // Bytes of the current line; whether the last byte was a CR (a LF right after it ends no second line).
  let line = 0;
  let afterCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      if (total > bounds.replyBytes) {
        throw new UpstreamTooLarge(`the reply passed ${bounds.replyBytes} bytes`);
      }
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i]!;
        if (byte === LF || byte === CR) {
          if (!(byte === LF && afterCr)) {
            if (line === 0) event = 0;
            line = 0;
          }
          afterCr = byte === CR;
          continue;
        }
        afterCr = false;
        line++;
        if (++event > bounds.eventBytes) {
          throw new UpstreamTooLarge(`an event of the reply passed ${bounds.eventBytes} bytes`);
        }
      }
      controller.enqueue(chunk);
    },
  });
}

class StreamCut extends Error {
  override message = 'the stream ended without a finish reason';
}

/** Aborts its signal when `reset` has not been called for `ms`. */
class IdleTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  fired = false;

  constructor(private readonly ms: number) {
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  reset(): void {
    clearTimeout(this.timer);
    this.timer = this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('idle'));
    }, this.ms);
  }
}

const RETRIED_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** A cut stream, a failed connection, or a refusal another try may get past. */
const upstreamRetryable = (err: unknown) =>
  err instanceof StreamCut ||
  err instanceof APIConnectionError ||
  isNetworkError(err) ||
  (err instanceof APIError && err.status !== undefined && RETRIED_STATUS(err.status));

/** 0.5 s doubling to 8 s between tries, and a `retry-after` waited for up to {@link MAX_RETRY_AFTER_MS}. */
const UPSTREAM_RETRY = { retryable: upstreamRetryable, baseMs: 500, maxMs: 8_000, maxRetryAfterMs: MAX_RETRY_AFTER_MS };

/** undici's error for a response body cut off mid-way. */
const isNetworkError = (err: unknown) =>
  err instanceof TypeError && /terminated|socket|fetch failed/i.test(err.message);

/** The sentence the visitor reads for a failure that is not retried (any more). */
function plainSentence(err: unknown, streamed: boolean): string {
  if (streamed || err instanceof StreamCut || isNetworkError(err)) return MODEL_FAILED.cut;
  if (err instanceof APIConnectionError) return MODEL_FAILED.unreachable;
  if (!(err instanceof APIError) || err.status === undefined) return MODEL_FAILED.refused;
  const status = err.status;
  if (status === 401 || status === 403) return MODEL_FAILED.credentials;
  if (status === 404) return MODEL_FAILED.missing;
  if (status === 429) {
    const after = retryAfterMs(err.headers);
    return after !== undefined && after > MAX_RETRY_AFTER_MS ? MODEL_FAILED.busyFor(after) : MODEL_FAILED.busy;
  }
  return status >= 500 ? MODEL_FAILED.trouble : MODEL_FAILED.refused;
}

/** The UpstreamTooLarge behind a failure (the `openai` client may wrap what its body stream threw). */
function tooLargeOf(err: unknown): UpstreamTooLarge | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof UpstreamTooLarge) return e;
  }
  return undefined;
}

/** A failure as `svc_model_failures_total` counts it (an idle stream is told apart before). */
function failureKind(err: unknown): ModelFailure {
  if (tooLargeOf(err)) return 'too_large';
  if (err instanceof StreamCut || isNetworkError(err)) return 'cut';
  if (!(err instanceof APIError) || err.status === undefined) return 'connection';
  if (err.status === 401 || err.status === 403) return 'auth';
  if (err.status === 429) return 'rate_limited';
  return err.status >= 500 ? 'server' : 'refused';
}

function seconds(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s === 1 ? '1 second' : `${s} seconds`;
}

/** What the log says about a failure: the status and upstream message (an APIError's message holds both), never a header. */
function failureOf(err: unknown): string {
  if (err instanceof APIError) return err.message;
  if (err instanceof Error)
    return `${err.name}: ${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`;
  return String(err);
}
