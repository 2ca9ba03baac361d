import type { LinkHosts } from '../http/public-url.js';
import type { Db } from '../store/db.js';
import type { TurnRegistry } from '../turns/registry.js';
import type { Drain } from './drain.js';
import type { Handoffs } from './handoffs.js';
import type { Quotas } from './limits.js';
import type { Metrics } from './metrics.js';
import type { OpenStreams } from './open-streams.js';
import type { OperatorQueues } from './operator-queue.js';
import type { PaymentOrders } from './payment-orders.js';
import type { RecordLog } from './record-log.js';
import type { SmsChallenge } from './sms-challenge.js';
import type { SmsSender } from './sms-sender.js';
import type { SpeechSynthesizer } from './speech.js';

/**
 * Everything the routes share: configuration and the long-lived services built on it (service.ts makes
 * it). The services it holds take what they need in their constructors and never import it.
 */
export interface AppContext {
  db: Db;
  /** Stores each record and publishes it after commit; open streams follow it. */
  records: RecordLog;
  /** The turns running in this process (for interrupt and shutdown). */
  turns: TurnRegistry;
  /** Payment orders and their expiry timers. */
  payments: PaymentOrders;
  /** Who holds each conversation handed to a person, the changes of it, and the deadlines of those waiting. */
  handoffs: Handoffs;
  /** The operators' queues, and the changes of them heard from every instance. */
  queues: OperatorQueues;
  /** The record streams open in this process, per user (bounded by `quotas.streamsPerUser`). */
  streams: OpenStreams;
  /** Uploads and each conversation's agent workspace live below this folder. */
  filesDir: string;
  maxUploadBytes: number;
  quotas: Quotas;
  /**
   * Where visitors reach the service (`--public-url`), for the links it hands out (pay pages, uploads);
   * without it, links use the request's `Host` when it names this service (`linkHosts`).
   */
  publicUrl?: string;
  /** Without `publicUrl`: the hosts links may name (the addresses listened on, `--link-host`), else `own`. */
  linkHosts: LinkHosts;
  /** 32 bytes; encrypts stored connector credentials and keys the hashes of SMS codes. */
  secret: Buffer;
  sms: SmsSender;
  /** The operator's challenge for SMS codes to new numbers near the daily cap, if any. */
  smsChallenge?: SmsChallenge;
  /** Reads agent replies aloud (messageAudio). */
  speech: SpeechSynthesizer;
  /** Interval of SSE comment heartbeats. */
  heartbeatMs: number;
  /**
   * Set with `--demo`: the demo workspace's API key (the workspace is seeded first if it is missing), with
   * which the demo site's token endpoint mints visitor sessions. Without it the demo pages are not served.
   */
  demoApiKey?: () => Promise<string>;
  /** What `GET /metrics` reports; the services count into it. */
  metrics: Metrics;
  /** Whether this instance is draining: not ready, no new streams or sends. */
  drain: Drain;
  /** One line to the service's log at `info` (never a token). */
  log: (line: string) => void;
  /** A failure no request caused or could be told (a stream that broke): logged at `error`. */
  logError: (line: string) => void;
}
