import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { Pool } from 'undici';
import type { SendResult } from '../src/protocol/conversation-types.js';
import type { ChatStreamRecord } from '../src/protocol/record-types.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { percentile, ROOT, round } from './browser.js';
import { rssMb, startServer } from './service.js';

/**
 * Benchmarks 5 and 6 (issue 44): the service under load, on each store, as a curve. Every instance is
 * `svc-server` in its own process; the clients are undici pools in this process (one connection per visitor
 * for its sends and one for its stream, as browsers hold them), reading the record streams with
 * eventsource-parser. All of it shares this machine's cores with the database.
 */

export interface LoadOptions {
  /** Concurrent conversations of each point of the curve. */
  levels: number[];
  /** Turns each conversation sends, one after another, at a level. */
  turns: (conversations: number) => number;
  /** A git ref whose service is measured beside this one's on PostgreSQL (setups named `…, before`). */
  baseline?: string;
  /** Open record streams of the idle measurement (distinct visitors and conversations), and its window. */
  idleStreams: number;
  idleSeconds: number;
  /** Sends whose first delta is timed while the idle streams are open. */
  idleSends: number;
  /** Readers of one conversation that one reply goes to. */
  fanOutReaders: number;
  /** Conversations that each send a turn every `everyMs`, `turns` each: visitors who read and type between turns. */
  paced?: { conversations: number; turns: number; everyMs: number };
}

export const LOAD: LoadOptions = {
  levels: [1, 10, 100, 1000],
  // 1,000 turns a point but at 1,000 conversations (3 each): a point of 300 lasted a second or two at 100
  // conversations, too short for its CPU time a record (a two-instance point came out twice the one's).
  turns: (conversations) => Math.max(3, Math.ceil(1000 / conversations)),
  // The service before issue 44 (one write lock for every instance): the last commit of main before it.
  baseline: '40669cbe44abca82cc66b629fe2db08d888e616d',
  idleStreams: 10_000,
  idleSeconds: 60,
  idleSends: 200,
  fanOutReaders: 1000,
  paced: { conversations: 10, turns: 60, everyMs: 500 },
};

/**
 * What PostgreSQL runs with here: as durable as SQLite's default (WAL, synchronous=NORMAL: a crash of the
 * process loses nothing, one of the machine may lose the last commits), every other setting its default.
 */
const AS_DURABLE_AS_SQLITE = ['synchronous_commit=off'];

/** CPU time (user and system) of a process and of the children it reaped, in ms (Linux, /proc). */
function cpuMs(pid: number, withReaped = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14–17 of stat (utime, stime, cutime, cstime), counted from field 3 here, in clock ticks (100 a second).
    const ticks = Number(fields[11]) + Number(fields[12]) + (withReaped ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks * 10;
  } catch {
    return 0;
  }
}

/** The CPU time so far of PostgreSQL's processes: the postmaster, its children and those it reaped. */
function databaseCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === postmaster) total += cpuMs(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** One instance of the service and the clients' pools to it. */
interface Instance {
  url: string;
  child: ChildProcess;
  /** Sends and other requests: a connection per visitor at most. */
  requests: Pool;
  /** Record streams: a connection each. */
  streams: Pool;
}

interface Setup {
  name: string;
  instances: Instance[];
  /** The PostgreSQL server's postmaster (none on SQLite). */
  postmaster?: number;
}

const WORKSPACE_KEY = 'sk_acme_1';

async function call<T>(instance: Instance, path: string, token: string, body?: unknown): Promise<T> {
  const res = await instance.requests.request({
    path: `/api/v2${path}`,
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

/** Runs `work` on every item, at most `width` at once. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!, i);
      }
    }),
  );
  return results;
}

/** Session tokens of `count` new members of the fixture's workspace `acme` (a visitor each). */
function visitors(instance: Instance, count: number, prefix: string): Promise<string[]> {
  return inBatches(
    Array.from({ length: count }, (_, i) => `${prefix}_${i}`),
    32,
    async (ref) => {
      await call(instance, '/workspaces/acme/members', WORKSPACE_KEY, { sp_user_ref: ref });
      return (await call<{ token: string }>(instance, '/workspaces/acme/sessions', WORKSPACE_KEY, { sp_user_ref: ref }))
        .token;
    },
  );
}

/**
 * One conversation as a widget holds it: a stream open on `reader`, sends through `sender`. `next(type)` is the
 * next record of that type the stream gives after the call.
 */
class LiveConversation {
  records = 0;
  pings = 0;
  ended = false;
  #waiting: { type: string; found: (record: ChatStreamRecord) => void; failed: (err: Error) => void }[] = [];
  #abort = new AbortController();

  /** The instances sends go to, each in turn. */
  #senders: Instance[];
  #sent = 0;

  constructor(
    readonly token: string,
    readonly id: string,
    sender: Instance,
  ) {
    this.#senders = [sender];
  }

  /** Sends go to each of `senders` in turn. */
  sendingThrough(senders: Instance[]): this {
    this.#senders = senders;
    return this;
  }

  /** Opens the stream after the record `after` (at the live tail without it); resolves once it is open. */
  async open(reader: Instance, after?: string): Promise<void> {
    const res = await reader.streams.request({
      path: `/api/v2/conversations/${this.id}/stream`,
      method: 'GET',
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'text/event-stream',
        ...(after ? { 'last-event-id': after } : {}),
      },
      signal: this.#abort.signal,
    });
    if (res.statusCode !== 200) throw new Error(`stream: ${res.statusCode} ${await res.body.text()}`);
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== 'record') return;
        const record = JSON.parse(event.data) as ChatStreamRecord;
        this.records++;
        const at = this.#waiting.findIndex((w) => w.type === record.raw.type);
        if (at >= 0) this.#waiting.splice(at, 1)[0]!.found(record);
      },
      onComment: (comment) => {
        if (comment.trim() === 'ping') this.pings++;
      },
    });
    res.body.setEncoding('utf8');
    res.body.on('data', (chunk: string) => parser.feed(chunk));
    res.body.on('error', () => {});
    res.body.on('end', () => {
      this.ended = true;
      for (const waiting of this.#waiting.splice(0)) waiting.failed(new Error(`the stream of ${this.id} ended`));
    });
  }

  next(type: string): Promise<ChatStreamRecord> {
    return new Promise((found, failed) => {
      this.#waiting.push({ type, found, failed });
    });
  }

  send(message: string): Promise<SendResult> {
    const sender = this.#senders[this.#sent++ % this.#senders.length]!;
    return call<SendResult>(sender, '/conversations/send', this.token, { message, conversationId: this.id });
  }

  /** One turn: the time from its send to its first delta (ms). */
  async turn(message: string): Promise<number> {
    const start = performance.now();
    const delta = this.next('assistant_delta');
    const result = this.next('result');
    await this.send(message);
    await delta;
    const ms = performance.now() - start;
    await result;
    return ms;
  }

  close(): void {
    this.#waiting = [];
    this.#abort.abort();
  }
}

/** A new conversation of `token` with the echo agent, sent through `instance`. */
const newConversation = (instance: Instance, token: string) =>
  call<SendResult>(instance, '/conversations/send', token, {
    message: 'hello',
    targetAgentIds: ['agent_echo'],
    newConversation: true,
  });

/**
 * A new conversation sending through `sender`, its stream open on `reader` once its first turn has ended (so
 * that turn is not measured); `cursor` is that turn's `result`.
 */
async function openConversation(sender: Instance, reader: Instance, token: string) {
  const sent = await newConversation(sender, token);
  const conversation = new LiveConversation(token, sent.conversationId, sender);
  const ended = conversation.next('result');
  await conversation.open(reader, sent.userEventId);
  return { conversation, cursor: (await ended).id };
}

/**
 * Opens a conversation for each token, as a load balancer without sticky sessions spreads a visitor's requests:
 * conversation n reads its stream from instance n, and its sends go to each instance in turn.
 */
function openConversations(setup: Setup, tokens: string[]): Promise<LiveConversation[]> {
  const { instances } = setup;
  return inBatches(tokens, 64, async (token, n) => {
    const at = (k: number) => instances[(n + k) % instances.length]!;
    return (await openConversation(at(1), at(0), token)).conversation.sendingThrough(instances.map((_, k) => at(k)));
  });
}

interface Usage {
  instancesMs: number;
  databaseMs: number;
  clientMs: number;
}

function usage(setup: Setup): Usage {
  const client = process.cpuUsage();
  return {
    instancesMs: setup.instances.reduce((sum, i) => sum + cpuMs(i.child.pid!), 0),
    databaseMs: setup.postmaster ? databaseCpuMs(setup.postmaster) : 0,
    clientMs: (client.user + client.system) / 1000,
  };
}

export interface CurvePoint {
  conversations: number;
  turns: number;
  records: number;
  recordsPerSecond: number;
  sendToFirstDelta: { sends: number; p50Ms: number; p99Ms: number };
  /** CPU time per record stored and delivered: the instances', the database's, this process's (the clients'). */
  cpuMsPerRecord: { instances: number; database: number; clients: number };
}

/** Sends' times from send to first delta (ms): how many, p50 and p99. */
const firstDeltas = (latencies: number[]) => ({
  sends: latencies.length,
  p50Ms: round(percentile(latencies, 50), 2),
  p99Ms: round(percentile(latencies, 99), 2),
});

/** One point of the curve: `count` conversations at once, each sending `turns` turns one after another. */
async function point(setup: Setup, tokens: string[], turns: number): Promise<CurvePoint> {
  const conversations = await openConversations(setup, tokens);
  try {
    const before = usage(setup);
    const recordsBefore = conversations.reduce((sum, c) => sum + c.records, 0);
    const start = performance.now();
    const latencies = (
      await Promise.all(
        conversations.map(async (conversation) => {
          const ms: number[] = [];
          for (let t = 0; t < turns; t++) ms.push(await conversation.turn(`turn ${t}`));
          return ms;
        }),
      )
    ).flat();
    const seconds = (performance.now() - start) / 1000;
    const after = usage(setup);
    const records = conversations.reduce((sum, c) => sum + c.records, 0) - recordsBefore;
    const per = (ms: number) => round(ms / records, 3);
    return {
      conversations: tokens.length,
      turns,
      records,
      recordsPerSecond: Math.round(records / seconds),
      sendToFirstDelta: firstDeltas(latencies),
      cpuMsPerRecord: {
        instances: per(after.instancesMs - before.instancesMs),
        database: per(after.databaseMs - before.databaseMs),
        clients: per(after.clientMs - before.clientMs),
      },
    };
  } finally {
    for (const conversation of conversations) conversation.close();
  }
}

/**
 * `tokens`' conversations each sending a turn every `everyMs` (the first ones spread over an interval), `turns`
 * each: the first delta of a site whose visitors read and type between turns. The curve's loop is closed (each
 * conversation sends the moment its last turn ends), so past a few conversations its latency is its own queue.
 */
async function paced(setup: Setup, tokens: string[], { turns, everyMs }: { turns: number; everyMs: number }) {
  const conversations = await openConversations(setup, tokens);
  try {
    const latencies = (
      await Promise.all(
        conversations.map(async (conversation, n) => {
          const ms: number[] = [];
          let next = performance.now() + (everyMs * n) / conversations.length;
          for (let t = 0; t < turns; t++) {
            await sleep(Math.max(0, next - performance.now()));
            next += everyMs;
            ms.push(await conversation.turn(`paced ${t}`));
          }
          return ms;
        }),
      )
    ).flat();
    return {
      conversations: tokens.length,
      everyMs,
      ...firstDeltas(latencies),
    };
  } finally {
    for (const conversation of conversations) conversation.close();
  }
}

/** One reply to `readers` streams of one conversation: when each read its `result`, from the send (ms). */
async function fanOut(setup: Setup, token: string, readers: number) {
  const sender = setup.instances[0]!;
  const opened = await openConversation(sender, sender, token);
  opened.conversation.close();
  const streams = await inBatches(Array.from({ length: readers }), 64, async (_, n) => {
    const conversation = new LiveConversation(token, opened.conversation.id, sender);
    await conversation.open(setup.instances[n % setup.instances.length]!, opened.cursor);
    return conversation;
  });
  try {
    const start = performance.now();
    const ends = streams.map((s) => s.next('result').then(() => performance.now() - start));
    await streams[0]!.send('to everyone');
    const ms = await Promise.all(ends);
    return {
      readers,
      p50Ms: round(percentile(ms, 50)),
      p99Ms: round(percentile(ms, 99)),
      maxMs: round(Math.max(...ms)),
    };
  } finally {
    for (const s of streams) s.close();
  }
}

/** The service `bin` (svc-server.js) as one instance, with its pools. */
async function startInstance(dir: string, database: string, bin?: string, extra: string[] = []): Promise<Instance> {
  const { url, child } = await startServer(dir, ['--db', database, ...extra], bin);
  const options = { connections: null, bodyTimeout: 0, headersTimeout: 0, keepAliveTimeout: 60_000 };
  return { url, child, requests: new Pool(url, options), streams: new Pool(url, options) };
}

async function stopInstance(instance: Instance): Promise<void> {
  await instance.requests.destroy();
  await instance.streams.destroy();
  instance.child.kill('SIGTERM');
}

/**
 * `ref`'s service, compiled to JavaScript in a folder of its own from the repository's history (git archive),
 * with its own `@svc/agent-sdk/protocol` and this checkout's other packages: what is measured beside this
 * one's, in the same run. Returns its bin.
 */
function buildBaseline(ref: string, dir: string): string {
  const tar = join(dir, 'src.tar');
  // package.json: its `"type": "module"` makes the protocol compile as ES modules.
  const files = ['server', 'src/protocol', 'tsconfig.json', 'package.json'];
  execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', `--output=${tar}`, ref, ...files]);
  execFileSync('tar', ['-xf', tar], { cwd: dir });
  const tsc = (args: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args]);
  // Every package of this checkout but @svc/agent-sdk, which is the ref's: its package.json, its protocol compiled
  // here, the rest of its dist/ this checkout's build (the widget's files the demo pages name).
  const sdk = join(dir, 'node_modules/@svc/agent-sdk');
  mkdirSync(sdk, { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry !== '@svc') symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  const built = join(ROOT, 'dist');
  const links: [string, string, string[]][] = [
    [built, join(sdk, 'dist'), ['lib', 'types']],
    [join(built, 'lib'), join(sdk, 'dist/lib'), ['protocol']],
    [join(built, 'types'), join(sdk, 'dist/types'), ['protocol']],
  ];
  for (const [from, to, skip] of links) {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from)) if (!skip.includes(entry)) symlinkSync(join(from, entry), join(to, entry));
  }
  cpSync(join(dir, 'package.json'), join(sdk, 'package.json'));
  tsc([
    ...['--rootDir', join(dir, 'src'), '--outDir', join(sdk, 'dist/lib'), '--declarationDir', join(sdk, 'dist/types')],
    ...['--declaration', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'],
    ...['--strict', '--skipLibCheck', '--types', 'node', join(dir, 'src/protocol/index.ts')],
  ]);
  const server = join(dir, 'server');
  tsc(['-p', join(server, 'tsconfig.build.json')]);
  for (const folder of ['store/migrations', 'demo']) {
    cpSync(join(server, folder), join(server, 'dist', folder), { recursive: true });
  }
  return join(server, 'bin/svc-server.js');
}

export interface IdleFigures {
  streams: number;
  windowSeconds: number;
  pingsPerStream: number;
  rssBeforeMb: number;
  rssOpenMb: number;
  rssPerStreamKb: number;
  cpuPercentOfACore: number;
  sendToFirstDelta: { sends: number; p50Ms: number; p99Ms: number };
}

/**
 * `count` record streams of distinct visitors and conversations open on one instance (PostgreSQL) for
 * `seconds`, heartbeats and all: the instance's memory a stream, its CPU at idle, and a send's first delta meanwhile.
 */
async function idleStreams(postgres: TestPostgres, dir: string, options: LoadOptions): Promise<IdleFigures> {
  const instance = await startInstance(join(dir, 'idle'), await postgres.createDatabase(), undefined, [
    '--rate-limit',
    '0',
  ]);
  try {
    const tokens = await visitors(instance, options.idleStreams + 1, 'idle');
    const [probeToken] = tokens.splice(0, 1);
    const conversations = await inBatches(tokens, 64, async (token) => {
      const sent = await newConversation(instance, token);
      return new LiveConversation(token, sent.conversationId, instance);
    });
    const probe = (await openConversation(instance, instance, probeToken!)).conversation;
    const rssBeforeMb = rssMb(instance.child.pid!);
    await inBatches(conversations, 64, (c) => c.open(instance));
    const rssOpenMb = rssMb(instance.child.pid!);
    const cpuBefore = cpuMs(instance.child.pid!);
    const pingsBefore = conversations.reduce((sum, c) => sum + c.pings, 0);
    await new Promise((done) => setTimeout(done, options.idleSeconds * 1000));
    const cpuPercentOfACore = round(((cpuMs(instance.child.pid!) - cpuBefore) / (options.idleSeconds * 1000)) * 100, 2);
    const pings = conversations.reduce((sum, c) => sum + c.pings, 0) - pingsBefore;
    const latencies: number[] = [];
    for (let i = 0; i < options.idleSends; i++) latencies.push(await probe.turn(`while idle ${i}`));
    const open = conversations.filter((c) => !c.ended).length;
    for (const c of [...conversations, probe]) c.close();
    return {
      streams: open,
      windowSeconds: options.idleSeconds,
      pingsPerStream: round(pings / conversations.length, 2),
      rssBeforeMb: round(rssBeforeMb),
      rssOpenMb: round(rssOpenMb),
      rssPerStreamKb: round(((rssOpenMb - rssBeforeMb) * 1024) / conversations.length, 2),
      cpuPercentOfACore,
      sendToFirstDelta: firstDeltas(latencies),
    };
  } finally {
    await stopInstance(instance);
  }
}

export interface SetupFigures {
  name: string;
  instances: number;
  code: string;
  curve: CurvePoint[];
  fanOut?: Awaited<ReturnType<typeof fanOut>>;
  paced?: Awaited<ReturnType<typeof paced>>;
}

export interface LoadResults {
  source: string;
  loadAverage: number[];
  setups: SetupFigures[];
  idle: IdleFigures;
}

/**
 * The curve on every setup (SQLite; one PostgreSQL instance; two on one database; with a baseline, the same
 * two on that ref's code), then 1,000 readers of one conversation on each of ours, and the idle streams.
 */
export async function loadBenchmark(options: LoadOptions): Promise<LoadResults> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-load-'));
  const postgres = await startPostgres(AS_DURABLE_AS_SQLITE);
  const loadAverage = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  try {
    const quota = ['--quota', `streamsPerUser=${options.fanOutReaders + 10}`];
    const baseline = options.baseline && buildBaseline(options.baseline, mkdtempSync(join(dir, 'baseline-')));
    type Plan = { name: string; databases: () => Promise<string[]>; postgres: boolean; bin?: string; code: string };
    const plans: Plan[] = [
      { name: 'SQLite', databases: async () => [join(dir, 'svc.db')], postgres: false, code: 'this checkout' },
      {
        name: 'PostgreSQL',
        databases: async () => [await postgres.createDatabase()],
        postgres: true,
        code: 'this checkout',
      },
      {
        name: '2 × PostgreSQL',
        postgres: true,
        databases: async () => {
          const shared = await postgres.createDatabase();
          return [shared, shared];
        },
        code: 'this checkout',
      },
    ];
    if (baseline) {
      plans.push(
        { ...plans[1]!, name: 'PostgreSQL, before', bin: baseline, code: options.baseline!.slice(0, 12) },
        { ...plans[2]!, name: '2 × PostgreSQL, before', bin: baseline, code: options.baseline!.slice(0, 12) },
      );
    }
    const setups: SetupFigures[] = [];
    for (const [n, plan] of plans.entries()) {
      const instances: Instance[] = [];
      for (const [i, database] of (await plan.databases()).entries()) {
        instances.push(await startInstance(join(dir, `setup-${n}-${i}`), database, plan.bin, quota));
      }
      const setup: Setup = {
        name: plan.name,
        instances,
        postmaster: plan.postgres ? postgres.postmaster() : undefined,
      };
      try {
        const tokens = await visitors(instances[0]!, Math.max(...options.levels) + 1, `load_${n}`);
        const curve: CurvePoint[] = [];
        for (const level of options.levels) {
          curve.push(await point(setup, tokens.slice(1, level + 1), options.turns(level)));
          console.log(`${plan.name}, ${level} conversations: ${JSON.stringify(curve.at(-1))}`);
        }
        const figures: SetupFigures = { name: plan.name, instances: instances.length, code: plan.code, curve };
        if (!plan.bin) {
          figures.fanOut = await fanOut(setup, tokens[0]!, options.fanOutReaders);
          const { paced: pace } = options;
          if (pace) figures.paced = await paced(setup, tokens.slice(1, pace.conversations + 1), pace);
        }
        setups.push(figures);
      } finally {
        for (const instance of instances) await stopInstance(instance);
      }
    }
    const idle = await idleStreams(postgres, dir, options);
    return {
      source:
        'svc-server processes (compiled), SQLite (a file, WAL) or PostgreSQL 15 (synchronous_commit=off) over a unix ' +
        'socket, echo agent; clients: undici pools in the benchmark process, a connection per visitor for sends and ' +
        'one per stream; with two instances a conversation reads its stream from one and sends to each in turn',
      loadAverage,
      setups,
      idle,
    };
  } finally {
    postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
