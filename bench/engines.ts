import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatClient } from '../src/client/chat.js';
import { HttpClient } from '../src/client/http.js';
import type { ChatStreamRecord } from '../src/protocol/record-types.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { percentile, round } from './browser.js';
import { startServer, visitorToken } from './service.js';

/** Sends per setup for the latency; conversations × turns each for the throughput. */
const SENDS = 200;
const CONVERSATIONS = 20;
const TURNS = 10;

/**
 * What the service's instances commit as durably as SQLite does by default (WAL, synchronous=NORMAL: a
 * crash of the process loses nothing, one of the machine may lose the last commits): PostgreSQL with
 * synchronous_commit=off, every other setting its default.
 */
const AS_DURABLE_AS_SQLITE = ['synchronous_commit=off'];

interface Setup {
  name: string;
  /** The instances' URLs (requests alternate between them). */
  urls: string[];
}

/** Reads `stream` until a record of `type`; returns how many records it read. */
async function readUntil(stream: AsyncIterator<ChatStreamRecord>, type: string): Promise<number> {
  for (let n = 1; ; n++) {
    const { value, done } = await stream.next();
    if (done) throw new Error('the stream ended');
    if (value.raw.type === type) return n;
  }
}

const clientOf = (url: string, token: string) => new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));

/**
 * Send → first delta: each send goes to one instance, the stream is read from the other (the same one with
 * a single instance), so two instances pay for the wake-up that crosses them.
 */
async function latency({ urls }: Setup, token: string) {
  const [sender, reader] = [clientOf(urls[0]!, token), clientOf(urls.at(-1)!, token)];
  const first = await sender.sendMessage({ message: 'warm up', targetAgentIds: ['agent_echo'], newConversation: true });
  const stream = reader.stream(first.conversationId, { lastEventId: first.lastEventId })[Symbol.asyncIterator]();
  const latencies: number[] = [];
  for (let i = 0; i < SENDS; i++) {
    const start = performance.now();
    await sender.send({ message: `ping ${i}`, conversationId: first.conversationId });
    await readUntil(stream, 'assistant_delta');
    latencies.push(performance.now() - start);
    await readUntil(stream, 'result');
  }
  await stream.return?.(undefined);
  return { p50Ms: round(percentile(latencies, 50), 2), p99Ms: round(percentile(latencies, 99), 2) };
}

/**
 * Records per second, stored and delivered: 20 conversations at once, each sending 10 echo turns one after
 * another and reading every record of each from its stream; conversation n sends through instance n.
 */
async function throughput({ urls }: Setup, token: string) {
  const start = performance.now();
  const counts = await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, n) => {
      const chat = clientOf(urls[n % urls.length]!, token);
      const first = await chat.sendMessage({ message: 'start', targetAgentIds: ['agent_echo'], newConversation: true });
      const stream = chat.stream(first.conversationId, { lastEventId: first.lastEventId })[Symbol.asyncIterator]();
      let records = 0;
      for (let i = 0; i < TURNS; i++) {
        await chat.send({ message: `turn ${i}`, conversationId: first.conversationId });
        records += await readUntil(stream, 'result');
      }
      await stream.return?.(undefined);
      return records;
    }),
  );
  const records = counts.reduce((a, b) => a + b, 0);
  return { records, recordsPerSecond: Math.round(records / ((performance.now() - start) / 1000)) };
}

/**
 * Benchmark 7: the service on each store, side by side in one run: one instance on SQLite (a file), one
 * on PostgreSQL, two on one PostgreSQL database. Each instance is `svc-server` in its own process;
 * PostgreSQL 15 from Debian on this machine, over its unix socket.
 */
export async function enginesBenchmark() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-engines-'));
  const postgres = await startPostgres(AS_DURABLE_AS_SQLITE);
  const children: ChildProcess[] = [];
  const start = async (name: string, databases: string[]): Promise<Setup> => {
    const started = [];
    for (const [i, db] of databases.entries()) {
      const quota = ['--quota', `streamsPerUser=${CONVERSATIONS * 2 + 10}`];
      started.push(await startServer(join(dir, `${name}-${i}`), ['--db', db, ...quota]));
    }
    children.push(...started.map((s) => s.child));
    return { name, urls: started.map((s) => s.url) };
  };
  try {
    const shared = await postgres.createDatabase();
    const setups = [
      await start('sqlite', [join(dir, 'svc.db')]),
      await start('postgres', [await postgres.createDatabase()]),
      await start('postgres-2', [shared, shared]),
    ];
    const results: Record<string, unknown> = {};
    for (const setup of setups) {
      const token = await visitorToken(setup.urls[0]!, `bench_${setup.name}`);
      results[setup.name] = {
        instances: setup.urls.length,
        sendToFirstDelta: { sends: SENDS, ...(await latency(setup, token)) },
        throughput: { conversations: CONVERSATIONS, turns: TURNS, ...(await throughput(setup, token)) },
      };
    }
    return {
      source:
        'svc-server processes (compiled) on SQLite (a file, WAL) or PostgreSQL 15 (synchronous_commit=off) over a unix ' +
        'socket, echo agent, clients in the benchmark process, loopback; with two instances each send goes to one ' +
        'and its stream is read from the other',
      ...results,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
