import pino, { type Logger } from 'pino';

/** The levels an operator chooses from (`--log-level`), most verbose first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the service's log goes and how much of it (docs/server.md "Logs"). */
export interface LogOptions {
  /**
   * The lowest level written: `debug` adds each request as it arrives (with the client's address), `info` one
   * line per request and the service's own events, `error` (the default) its failures only.
   */
  level?: LogLevel;
  /** Where the lines go, one write each; stderr unless given (stdout keeps the lines scripts read). */
  destination?: { write(line: string): void };
  /** One readable line per entry (for a terminal) instead of JSON. */
  pretty?: boolean;
}

/** Fields that hold a credential wherever they appear (a line's own field, or one level down). */
const SECRET_FIELDS = ['token', 'apiKey', 'api_key', 'secret', 'password', 'mcpTokens', 'credentials'];

/**
 * What is never written, whatever a line carries: credential headers, the fields above, and a body's SMS
 * `code`. No line of the service carries a request body; these paths hold even if one did.
 */
const REDACT = [
  ...['authorization', 'cookie', '["set-cookie"]', '["x-api-key"]'].flatMap((header) =>
    ['headers', 'req.headers'].map((at) => (header.startsWith('[') ? `${at}${header}` : `${at}.${header}`)),
  ),
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
  'body.code',
  '*.body.code',
];

/** The service's logger (pino): one JSON object per line with an ISO `time` and the level's name. */
export function createLogger(options: LogOptions = {}): Logger {
  const out = options.destination ?? process.stderr;
  return pino(
    {
      level: options.level ?? 'error',
      // No pid or hostname: the process supervisor or the log shipper names the instance.
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.errWithCause },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    options.pretty ? readable(out) : out,
  );
}

/**
 * Each JSON line as `HH:MM:SS.mmm LEVEL message key=value…`, an error's stack below it. A dozen lines
 * rather than pino-pretty, whose current release pulls in a package that requires Node 22 (docs/server.md).
 */
function readable(out: { write(line: string): void }): { write(line: string): void } {
  return {
    write(line) {
      const { time, level, msg, err, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const pairs = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      const stack = (err as { stack?: string } | undefined)?.stack;
      const head = `${String(time).slice(11, 23)} ${String(level).toUpperCase().padEnd(5)} ${msg ?? ''}`;
      out.write(`${[head, ...pairs].join('  ')}${stack ? `\n${stack}` : ''}\n`);
    },
  };
}
