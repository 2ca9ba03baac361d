import type { PaymentOrders } from './payments.js';
import type { RecordLog } from './records.js';
import type { SmsSender } from './sms.js';
import type { SpeechSynthesizer } from './speech.js';
import type { Db } from './store/db.js';
import type { TurnRegistry } from './turns/registry.js';

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
  /** Uploads and each conversation's agent workspace live below this folder. */
  filesDir: string;
  maxUploadBytes: number;
  /** 32 bytes; encrypts stored connector credentials and keys the hashes of SMS codes. */
  secret: Buffer;
  sms: SmsSender;
  /** Reads agent replies aloud (messageAudio). */
  speech: SpeechSynthesizer;
  /** Interval of SSE comment heartbeats. */
  heartbeatMs: number;
  /** Serve the demo pages and the demo token endpoint. */
  demo: boolean;
  /** One line to the service's log (never a token). */
  log: (line: string) => void;
}
