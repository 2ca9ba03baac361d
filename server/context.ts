import type { LiveHub } from './conversations/hub.js';
import type { TurnRegistry } from './conversations/runner.js';
import type { Db } from './db.js';
import type { SmsSender } from './sms.js';
import type { SpeechSynthesizer } from './speech.js';

/** Everything the routes share: configuration and the long-lived services built on it. */
export interface AppContext {
  db: Db;
  /** Uploads and each conversation's agent workspace live below this folder. */
  filesDir: string;
  /** 32 bytes; encrypts stored connector credentials. */
  secret: Buffer;
  sms: SmsSender;
  /** Interval of SSE comment heartbeats. */
  heartbeatMs: number;
  maxUploadBytes: number;
  /** Serve the demo pages and the demo token endpoint. */
  demo: boolean;
  /** One line to the service's log (never a token). */
  log: (line: string) => void;
  /** Reads agent replies aloud (messageAudio). */
  speech: SpeechSynthesizer;
  /** The expiry timer of each pending payment order, by order id; cleared when the app closes. */
  paymentTimers: Map<string, NodeJS.Timeout>;
  /** Open conversation streams, fed by every stored record. */
  hub: LiveHub;
  /** The turns running in this process (for interrupt and shutdown). */
  turns: TurnRegistry;
}
