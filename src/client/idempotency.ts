import type { RequestOptions } from './config.js';
import type { Call } from './http.js';

/*
 * Sending exactly once (docs/protocol.md): every send carries an `Idempotency-Key` made here, one per
 * message and the same on every retry of it, so a retry after a lost response cannot store the message twice.
 */

/** Options of a send: the key to send it under (one per message; reuse it on every retry of that message). */
export interface IdempotencyOptions extends RequestOptions {
  /** Default: a new random UUID. */
  idempotencyKey?: string;
}

/**
 * A new key: a random (version 4) UUID. `crypto.randomUUID` exists only on secure pages (https, localhost);
 * `getRandomValues` everywhere, so a widget on a plain-http intranet page gets keys too. Each `0`, `1` and `8`
 * of the template becomes a random hex digit, `1` and `8` keeping the bits of the version and the variant.
 */
export const idempotencyKey = (): string =>
  '10000000-1000-4000-8000-100000000000'.replace(/[018]/g, (c) =>
    (+c ^ (crypto.getRandomValues(new Uint8Array(1))[0]! & (15 >> (+c / 4)))).toString(16),
  );

/**
 * The call of a send under `opts.idempotencyKey` (or a new key). The request core never repeats it by itself
 * (a POST): a service without this extension (the key is ours, not the spec's) would store a repeat again. Whoever
 * retries a message on purpose (`ChatStore.retry`, a caller) sends it again under its first key.
 */
export function sendCall({ idempotencyKey: key = idempotencyKey(), ...opts }: IdempotencyOptions): Partial<Call> {
  return { ...opts, headers: { 'idempotency-key': key } };
}
