import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../server/bin/svc-server.js', import.meta.url));

/** `svc-server` running as a child process (so a test can kill it). */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stderr: string[];
}

/** Starts `svc-server` with `args` and reads its URL from the first stdout line. */
export async function startServiceProcess(args: string[]): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk) => stderr.push(String(chunk)));
  const [first] = (await Promise.race([
    once(createInterface({ input: child.stdout! }), 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`svc-server exited with ${code}: ${stderr.join('')}`);
    }),
  ])) as [string];
  const url = /^listening on (\S+)$/.exec(first)?.[1];
  assert.ok(url, `unexpected first line: ${first}`);
  return { child, url, stderr };
}
