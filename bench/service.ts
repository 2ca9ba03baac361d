import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LIMITS } from '../server/services/limits.js';
import { ChatClient } from '../src/client/chat.js';
import { HttpClient } from '../src/client/http.js';
import { FIXTURE } from '../test/helpers/server.js';
import { percentile, ROOT, round } from './browser.js';

/**
 * The service as `svc-server` runs it, in its own process so its memory can be read; `bin` another build of it
 * (bench/load.ts measures a baseline's).
 */
export async function startServer(
  dir: string,
  args: string[] = [],
  bin = join(ROOT, 'server/bin/svc-server.js'),
): Promise<{ url: string; child: ChildProcess }> {
  mkdirSync(dir, { recursive: true });
  const fixture = join(dir, 'fixture.json');
  writeFileSync(fixture, JSON.stringify(FIXTURE));
  // Its log goes to a file of its folder: read only when it fails to start.
  const log = join(dir, 'service.log');
  const logFile = openSync(log, 'w');
  const child = spawn(
    process.execPath,
    [bin, '--port', '0', '--fixture', fixture, '--files-dir', join(dir, 'files'), ...args],
    { stdio: ['ignore', 'pipe', logFile] },
  );
  closeSync(logFile);
  let exited: ((code: number | null) => void) | undefined;
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    exited = (code) => reject(new Error(`svc-server exited with ${code}: ${readFileSync(log, 'utf8').slice(-2000)}`));
    child.once('exit', exited);
  }).finally(() => child.off('exit', exited!));
  return { url: first.replace('listening on ', '').trim(), child };
}

/** Resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? round(Number(line[1]) / 1024) : 0;
}

/** The highest of `rssMb(pid)` while `work` runs, sampled every 20 ms. */
async function peakRssMb<T>(pid: number, work: Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(pid));
  }, 20);
  try {
    return { result: await work, peakMb: Math.max(peakMb, rssMb(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

export async function visitorToken(url: string, ref: string): Promise<string> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${url}/api/v2/workspaces/acme${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_acme_1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res.json() as Promise<{ token: string }>;
  };
  await call('/members', { sp_user_ref: ref });
  return (await call('/sessions', { sp_user_ref: ref })).token;
}

/** Readers of `messages` at once, as in the report that found `messages` unbounded (four tabs of one visitor). */
const MESSAGE_READERS = 4;

/**
 * Benchmark 6: the most `messages` can cost. One visitor fills a conversation with the largest messages the
 * service takes, to the echo agent (so each turn also stores a reply as large), until the service says it is
 * full; then reads `messages` from 4 clients at once. The service's resident memory before and at its peak,
 * the size of the answer, and how long a small request waits meanwhile. Before the limits the same visitor
 * made it 30 messages of 1 MB: 60 MB answers, the service from 342 to 1,183 MB (docs/reliability.md).
 */
export async function messagesBenchmark() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-messages-'));
  const { url, child } = await startServer(dir);
  try {
    const token = await visitorToken(url, 'bench_messages');
    const chat = new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));
    const message = 'x'.repeat(LIMITS.messageBytes);
    let conversationId: string | undefined;
    let sent = 0;
    for (;;) {
      const target = conversationId ? { conversationId } : { targetAgentIds: ['agent_echo'], newConversation: true };
      const reply = await chat.sendMessage({ message, ...target }).catch((err: { status?: number }) => {
        if (err.status === 409) return undefined;
        throw err;
      });
      if (!reply) break;
      conversationId = reply.conversationId;
      sent++;
    }
    const idleMb = rssMb(child.pid!);
    const read = async () => {
      const res = await fetch(`${url}/api/v2/conversations/${conversationId}/messages`, {
        headers: { authorization: `Bearer ${token}` },
      });
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return bytes;
    };
    const probes: number[] = [];
    let reading = true;
    const probing = (async () => {
      while (reading) {
        const start = performance.now();
        await fetch(`${url}/api/v2/workspaces/whoami`, { headers: { authorization: 'Bearer sk_acme_1' } });
        probes.push(performance.now() - start);
      }
    })();
    const start = performance.now();
    const { result: sizes, peakMb } = await peakRssMb(
      child.pid!,
      Promise.all(Array.from({ length: MESSAGE_READERS }, read)),
    );
    const readMs = performance.now() - start;
    reading = false;
    await probing;
    return {
      source: 'svc-server in its own process, one conversation filled to its limit, read by 4 clients at once',
      messages: { sent, bytesEach: LIMITS.messageBytes },
      answerMb: round(sizes[0]! / 1024 / 1024, 1),
      serverRssIdleMb: idleMb,
      serverRssPeakMb: peakMb,
      readAllMs: round(readMs),
      otherRequestP50Ms: round(percentile(probes, 50), 1),
      otherRequestMaxMs: round(Math.max(...probes), 1),
    };
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
