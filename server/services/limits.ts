import type { z } from 'zod';
import { documented } from '../http/openapi.js';

/*
 * Every bound a caller can run into, in one place (docs/protocol.md "Limits" lists them with their refusals).
 * `LIMITS` are part of the wire contract and fixed; `Quotas` are per deployment (`--quota NAME=N`, or
 * `quotas` of startService), since what one visitor may use depends on the site.
 */

const KB = 1024;
const MB = 1024 * KB;
const HOUR_MS = 60 * 60 * 1000;

export const LIMITS = {
  /** Nesting of any JSON request body: deeper is refused before it is parsed. */
  jsonDepth: 32,
  /** A message's text, in UTF-8 bytes. */
  messageBytes: 64 * KB,
  /** A message's `metadata`, as JSON. */
  metadataBytes: 32 * KB,
  /** Each of a message's `parts`, as JSON. */
  partBytes: 8 * KB,
  /** `mcpTokens` of a send: entries, and each value (they are never stored, but held for the turn). */
  mcpTokens: 50,
  mcpTokenBytes: 8 * KB,
  /** What a conversation's records may take (their JSON): a send to a fuller one is refused. */
  conversationBytes: 16 * MB,
  /** What one turn's records may take: a reply that grows past it is stopped. */
  turnBytes: 4 * MB,
  /** How long the first result of a send is kept for a repeat of its `Idempotency-Key`. */
  idempotencyMs: 24 * HOUR_MS,
  /** An upload no message refers to is deleted this long after it was made. */
  unreferencedUploadMs: 24 * HOUR_MS,
  /** A path component of the file routes' `path`, in UTF-8 bytes (what file systems take). */
  pathComponentBytes: 255,
  pathBytes: 4 * KB,
  /**
   * A body refused with 413 is read and discarded up to this many bytes before the answer, so that a client
   * still sending reads the 413 rather than a reset; one declared or sent beyond it gets the 413 and the
   * connection closed at once.
   */
  discardBytes: 64 * MB,
} as const;

/** What one visitor, one address or one workspace may use. */
export interface Quotas {
  /** Record streams one user may hold open at once, per process (an in-memory count). */
  streamsPerUser: number;
  /** Bytes one user may upload in any hour. */
  uploadBytesPerHour: number;
  /** SMS codes requested from one client address (an IPv6 /64) in any hour, to any phones. */
  smsPerAddressPerHour: number;
  /** SMS codes one workspace sends in any 24 hours, unless its owner set its own cap. */
  smsPerWorkspacePerDay: number;
}

export const DEFAULT_QUOTAS: Quotas = {
  streamsPerUser: 32,
  uploadBytesPerHour: 100 * MB,
  smsPerAddressPerHour: 20,
  smsPerWorkspacePerDay: 1000,
};

/** `NAME=N` of the command line's `--quota`, checked against the quota names. */
export function parseQuota(text: string): [keyof Quotas, number] {
  const [name = '', value = ''] = text.split('=');
  const n = Number(value);
  if (!Object.hasOwn(DEFAULT_QUOTAS, name) || !/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new Error(
      `--quota takes NAME=N with a whole number N, NAME one of ${Object.keys(DEFAULT_QUOTAS).join(', ')}`,
    );
  }
  return [name as keyof Quotas, n];
}

/** `20971520` → `20 MB`, `2048` → `2 KB`: a limit as a person reads it in an error. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 * MB],
    ['MB', MB],
    ['KB', KB],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** A string of at most `bytes` in UTF-8 (no more characters than bytes, as its description says). */
export const boundedText = (schema: z.ZodString, bytes: number) =>
  documented(
    schema.refine((text) => Buffer.byteLength(text) <= bytes, `must be at most ${formatBytes(bytes)}`),
    { maxLength: bytes, description: `At most ${formatBytes(bytes)} of UTF-8.` },
  );

/** A value whose JSON is at most `bytes` (its depth is bounded by the body parser, LIMITS.jsonDepth). */
export const boundedJson = <T extends z.ZodTypeAny>(schema: T, bytes: number) =>
  documented(
    schema.refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= bytes,
      `must be at most ${formatBytes(bytes)} as JSON`,
    ),
    { description: `At most ${formatBytes(bytes)} as JSON.` },
  );
