import { parseArgs } from 'node:util';
import { DEFAULT_OVERLOAD } from '../http/overload.js';
import { parseQuota } from '../services/limits.js';
import { siteverifyChallenge } from '../services/sms-challenge.js';
import { readFixture } from './fixture.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { DEFAULT_DRAIN_GRACE_MS, DEFAULT_HANDOFF_WAIT_SECONDS, startService } from './service.js';

/** One setting: its flag, the environment variable that gives it when the flag is absent, and its default. */
interface Setting {
  flag: string;
  /** What the flag takes, as the table shows it (`HOST`); none for a switch. */
  arg?: string;
  env: string;
  /** The value when neither the flag nor the variable is given. */
  default?: string;
  /** The default as the table says it. */
  shown: string;
  meaning: string;
  /** A switch (`--demo`; `SVC_DEMO=1`), or a flag that may be repeated (its variable: comma-separated). */
  kind?: 'switch' | 'repeated';
}

const { rateLimit, maxEventLoopDelayMs } = DEFAULT_OVERLOAD;

/** Every setting of the command line: `--help` prints this table, and docs/server.md holds the same. */
const SETTINGS: Setting[] = [
  {
    flag: 'host',
    arg: 'HOST',
    env: 'SVC_HOST',
    default: '127.0.0.1',
    shown: '`127.0.0.1`',
    meaning: 'interface to listen on',
  },
  {
    flag: 'port',
    arg: 'N',
    env: 'PORT',
    default: '8787',
    shown: '`8787`',
    meaning: '`0` picks a free port; anything but 0 to 65535 exits with code 1',
  },
  {
    flag: 'db',
    arg: 'FILE|URL',
    env: 'SVC_DATABASE_URL',
    default: ':memory:',
    shown: '`:memory:`',
    meaning: 'a SQLite file (its folder is created) or `:memory:`, or `postgres://…`',
  },
  {
    flag: 'fixture',
    arg: 'FILE',
    env: 'SVC_FIXTURE',
    shown: 'none',
    meaning: 'loads the workspaces and keys of a fixture file (below); no demo seed',
  },
  {
    flag: 'sms-outbox',
    arg: 'FILE',
    env: 'SVC_SMS_OUTBOX',
    shown: 'none: codes go to the log',
    meaning: 'appends one JSON line per SMS code',
  },
  {
    flag: 'files-dir',
    arg: 'DIR',
    env: 'SVC_FILES_DIR',
    shown: '`$TMPDIR/svc-files-<pid>`',
    meaning: "uploads and each conversation's agent workspace (shared by every instance)",
  },
  {
    flag: 'demo',
    env: 'SVC_DEMO',
    shown: 'off',
    meaning: 'seeds the demo workspace (if missing) and serves the demo pages (`SVC_DEMO=1`)',
    kind: 'switch',
  },
  {
    flag: 'model-base-url',
    arg: 'URL',
    env: 'SVC_MODEL_BASE_URL',
    shown: 'none',
    meaning: 'an OpenAI-compatible endpoint (up to `/v1`); needs `--model`',
  },
  {
    flag: 'model',
    arg: 'NAME',
    env: 'SVC_MODEL',
    shown: 'none',
    meaning: 'the model at that endpoint',
  },
  {
    flag: 'public-url',
    arg: 'URL',
    env: 'SVC_PUBLIC_URL',
    shown: "none: the request's Host",
    meaning: 'where visitors reach the service: the origin (and path) of pay and file links',
  },
  {
    flag: 'link-host',
    arg: 'HOST[:PORT]',
    env: 'SVC_LINK_HOSTS',
    shown: 'none: the addresses listened on',
    meaning: 'a Host that may name pay and file links besides the addresses listened on; repeat it for several',
    kind: 'repeated',
  },
  {
    flag: 'sms-challenge-url',
    arg: 'URL',
    env: 'SVC_SMS_CHALLENGE_URL',
    shown: 'none: shares only',
    meaning: 'a CAPTCHA `siteverify` URL checking the `challenge` of SMS sends near the daily cap',
  },
  {
    flag: 'trust-proxy',
    arg: 'LIST',
    env: 'SVC_TRUST_PROXY',
    shown: 'none: the TCP peer',
    meaning: 'proxy addresses (or CIDR ranges, comma-separated) whose `X-Forwarded-For` names the client',
  },
  {
    flag: 'quota',
    arg: 'NAME=N',
    env: 'SVC_QUOTAS',
    shown: 'see below',
    meaning: 'a quota of this deployment; repeat it for several (the variable: comma-separated)',
    kind: 'repeated',
  },
  {
    flag: 'log-level',
    arg: 'LEVEL',
    env: 'SVC_LOG_LEVEL',
    default: 'info',
    shown: '`info`',
    meaning: '`debug` (adds each request as it arrives), `info` (a line per request), `warn`, `error` or `silent`',
  },
  {
    flag: 'log-format',
    arg: 'FORMAT',
    env: 'SVC_LOG_FORMAT',
    shown: '`pretty` on a terminal, else `json`',
    meaning: '`json` (one object per line) or `pretty` (one readable line per entry); the log goes to stderr',
  },
  {
    flag: 'rate-limit',
    arg: 'N/SECONDS',
    env: 'SVC_RATE_LIMIT',
    default: `${rateLimit.max}/${rateLimit.windowMs / 1000}`,
    shown: `\`${rateLimit.max}/${rateLimit.windowMs / 1000}\``,
    meaning: 'requests one client (credential, else address) may make per window, then 429; `0` turns it off',
  },
  {
    flag: 'max-event-loop-delay',
    arg: 'MS',
    env: 'SVC_MAX_EVENT_LOOP_DELAY',
    default: String(maxEventLoopDelayMs),
    shown: `\`${maxEventLoopDelayMs}\`: off`,
    meaning: 'mean event-loop delay over 5 s above which requests get 503 (1000 suits a machine of its own)',
  },
  {
    flag: 'max-heap',
    arg: 'MB',
    env: 'SVC_MAX_HEAP',
    default: '0',
    shown: '`0`: off',
    meaning: 'V8 heap in use above which requests get 503',
  },
  {
    flag: 'drain-grace',
    arg: 'SECONDS',
    env: 'SVC_DRAIN_GRACE',
    default: String(DEFAULT_DRAIN_GRACE_MS / 1000),
    shown: `\`${DEFAULT_DRAIN_GRACE_MS / 1000}\``,
    meaning: 'on SIGTERM, how long running turns may finish before they end',
  },
  {
    flag: 'handoff-wait',
    arg: 'SECONDS',
    env: 'SVC_HANDOFF_WAIT',
    default: String(DEFAULT_HANDOFF_WAIT_SECONDS),
    shown: `\`${DEFAULT_HANDOFF_WAIT_SECONDS}\``,
    meaning: 'how long a visitor waits for a person before the agent asks for contact details (1 to 86400)',
  },
];

/** `SETTINGS` as a Markdown table, columns padded as docs/server.md writes it. */
function settingsTable(): string {
  const rows = [
    ['flag', 'environment', 'default', 'meaning'],
    ...SETTINGS.map((s) => [
      `\`--${s.flag}${s.arg ? ` ${s.arg.replace('|', '\\|')}` : ''}\``,
      `\`${s.env}\``,
      s.shown,
      s.meaning,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n');
}

const USAGE = `usage: svc-server [--flag value]...
Each flag may be given by its environment variable instead; a flag on the command line wins.

${settingsTable()}

Secrets come from the environment only, never from a flag (flags show in \`ps\`): SVC_SERVER_SECRET (64 hex
digits), SVC_MODEL_API_KEY (else OPENAI_API_KEY), SVC_METRICS_TOKEN (the bearer token GET /metrics asks for),
SVC_SMS_CHALLENGE_SECRET (the secret of --sms-challenge-url).
SIGTERM or SIGINT drains the instance, then it exits with code 0; a second one stops it at once. It drains too
when the process that started it ends (npx, npm run, a shell that dies of a SIGTERM without passing it on).`;

/** Each setting's value: the flag, else its environment variable (when not empty), else its default. */
function readSettings(): Map<string, string | string[] | boolean | undefined> {
  const { values } = parseArgs({
    options: Object.fromEntries([
      ...SETTINGS.map((s) => [
        s.flag,
        s.kind === 'switch' ? { type: 'boolean' } : { type: 'string', multiple: s.kind === 'repeated' },
      ]),
      ['help', { type: 'boolean' }],
    ]) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
  });
  const settings = new Map<string, string | string[] | boolean | undefined>([['help', values.help as boolean]]);
  for (const s of SETTINGS) {
    const fromEnv = process.env[s.env] || undefined;
    const given = values[s.flag];
    if (s.kind === 'switch')
      settings.set(s.flag, (given as boolean | undefined) ?? /^(1|true|yes)$/i.test(fromEnv ?? ''));
    else if (s.kind === 'repeated') {
      settings.set(s.flag, (given as string[] | undefined) ?? fromEnv?.split(',').filter(Boolean) ?? []);
    } else settings.set(s.flag, (given as string | undefined) ?? fromEnv ?? s.default);
  }
  return settings;
}

/** A whole number of at least 0, or the error naming the flag. */
function count(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new Error(`--${flag} takes a whole number, not "${text}"`);
  return n;
}

async function main() {
  const settings = readSettings();
  const text = (flag: string) => settings.get(flag) as string | undefined;
  if (settings.get('help')) {
    console.log(USAGE);
    return;
  }
  const port = Number(text('port'));
  if (!/^\d+$/.test(text('port') ?? '') || port > 65535) {
    throw new Error(`--port must be 0 to 65535, not "${text('port')}"\n${USAGE}`);
  }
  const model = modelEndpoint(text('model-base-url'), text('model'));
  const level = text('log-level') as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new Error(`--log-level takes one of ${LOG_LEVELS.join(', ')}`);
  const format = text('log-format') ?? (process.stderr.isTTY ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new Error('--log-format takes json or pretty');
  const [max = '', seconds = '60'] = (text('rate-limit') ?? '').split('/');
  const service = await startService({
    host: text('host'),
    port,
    db: text('db'),
    fixture: text('fixture') ? readFixture(text('fixture')!) : undefined,
    smsOutbox: text('sms-outbox'),
    filesDir: text('files-dir'),
    demo: settings.get('demo') as boolean,
    publicUrl: text('public-url'),
    linkHosts: settings.get('link-host') as string[],
    // Its lines are the log's, in the format chosen for it (stderr: stdout keeps the lines scripts read).
    smsChallenge: smsChallengeOf(text('sms-challenge-url'), createLogger({ level, pretty: format === 'pretty' })),
    trustProxy: text('trust-proxy'),
    quotas: Object.fromEntries((settings.get('quota') as string[]).map(parseQuota)),
    log: { level, pretty: format === 'pretty' },
    overload: {
      rateLimit: {
        max: count('rate-limit', max),
        windowMs: count('rate-limit', seconds) * 1000,
      },
      maxEventLoopDelayMs: count('max-event-loop-delay', text('max-event-loop-delay')!),
      maxHeapBytes: count('max-heap', text('max-heap')!) * 1024 * 1024,
    },
    metricsToken: process.env.SVC_METRICS_TOKEN || undefined,
    drainGraceMs: count('drain-grace', text('drain-grace')!) * 1000,
    handoffWaitSeconds: waitSeconds(text('handoff-wait')!),
    model,
  });
  // Before the URL is printed: a script may signal the server as soon as it reads the URL. The first signal
  // drains (the proxy moves streams and sends to the other instances); a second one stops at once.
  let stopping = false;
  const stop = () => {
    const done = stopping ? service.close() : service.drain();
    stopping = true;
    done.then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  whenStarterGone(stop);
  // The first stdout line is the contract with scripts and the conformance suite.
  console.log(`listening on ${service.url}`);
  if (service.demoApiKey) {
    console.log(`demo workspace API key: ${service.demoApiKey}`);
    console.log(`demo: ${service.url}/`);
    console.log(
      model
        ? `demo agent Aria answers with the model ${model.model} at ${model.base_url}`
        : 'demo agent Aria runs the demo runtime (give --model-base-url and --model for a real model)',
    );
  }
}

/** `--handoff-wait`: a whole number of seconds, at least 1, at most a day (what a workspace's `wait_seconds` takes). */
function waitSeconds(text: string): number {
  const seconds = count('handoff-wait', text);
  if (seconds < 1 || seconds > 86_400) throw new Error(`--handoff-wait takes 1 to 86400 seconds, not "${text}"`);
  return seconds;
}

/** How often the process checks that whatever started it (`npx`, `npm run`, a shell) still runs. */
const STARTER_CHECK_MS = 1000;

/**
 * Runs `stop` once the process that started svc-server is gone. `npx svc-server`, `npm run server` and
 * `sh -c 'svc-server'` run it under a shell that dies of a SIGTERM without passing it on, which left the server
 * running with no parent; when the parent goes, this one drains as on SIGTERM. Started by init or a supervisor
 * that stays (systemd, a container's init), there is nothing to watch.
 */
function whenStarterGone(stop: () => void): void {
  const starter = process.ppid;
  if (starter <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === starter) return;
    clearInterval(timer);
    stop();
  }, STARTER_CHECK_MS).unref();
}

/** `--sms-challenge-url` goes with the secret `SVC_SMS_CHALLENGE_SECRET` from the environment. */
function smsChallengeOf(url: string | undefined, logger: { warn(line: string): void }) {
  if (!url) return undefined;
  const secret = process.env.SVC_SMS_CHALLENGE_SECRET;
  if (!URL.canParse(url) || !secret) {
    throw new Error('--sms-challenge-url takes a URL, and SVC_SMS_CHALLENGE_SECRET must hold the verifier secret');
  }
  return siteverifyChallenge(url, secret, (line) => logger.warn(line));
}

/** `--model-base-url` and `--model` (or SVC_MODEL_BASE_URL and SVC_MODEL) go together. */
function modelEndpoint(baseUrl: string | undefined, model: string | undefined) {
  if (!baseUrl && !model) return undefined;
  if (!baseUrl || !model) throw new Error(`--model-base-url and --model go together\n${USAGE}`);
  if (!URL.canParse(baseUrl)) throw new Error(`--model-base-url must be a URL such as http://127.0.0.1:11434/v1`);
  return { base_url: baseUrl, model };
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
