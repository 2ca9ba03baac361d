import type { Db } from './db.js';
import type { SmsSender } from './sms.js';

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
}
