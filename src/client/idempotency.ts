import type { RequestOptions } from './config.js';
import type { Call } from './http.js';

/*
 * Sending exactly once (docs/protocol.md): every send carries an `Idempotency-Key` made here, one per
 * message and the same on every retry of it, so a retry after a lost response cannot store the message twice.
 */

/** Options of a send: the key to send it under (one per message; reuse it on every retry of that message). */
export interface SendOptions extends RequestOptions {
  /** Default: a new random UUID. */
  idempotencyKey?: string;
}

/**
 * A new key: a random (version 4) UUID. `crypto.randomUUID` exists only on secure pages (https, localhost);
 * `getRandomValues` everywhere, so a widget on a plain-http intranet page gets keys too.
 */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The call of a send under `opts.idempotencyKey` (or a new key). The request core never repeats it by itself:
 * a service without this extension (the key is ours, not the spec's) would store a repeat again. Whoever
 * retries a message on purpose (`ChatStore.retry`, a caller) sends it again under its first key.
 */
export function sendCall({ idempotencyKey: key = idempotencyKey(), ...opts }: SendOptions): Partial<Call> {
  return { ...opts, headers: { 'idempotency-key': key }, idempotent: false };
}
