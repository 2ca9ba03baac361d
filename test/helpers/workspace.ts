import { existsSync, readFileSync } from 'node:fs';
import type { TestServer } from './server.js';

let refs = 0;
let phones = 0;

/** A `sp_user_ref` no other test of this file uses. */
export const uniqueRef = (label = 'user') => `${label}-${++refs}`;

/** An E.164 number no other test of this file uses, so the per-phone send limit never crosses tests. */
export const uniquePhone = () => `+1415555${String(++phones).padStart(4, '0')}`;

/** Provisions a member of acme (or `slug`) with its workspace key and returns its id. */
export async function provision(server: TestServer, spUserRef = uniqueRef(), slug = 'acme', token = 'sk_acme_1') {
  const res = await server.api(`/workspaces/${slug}/members`, {
    method: 'POST',
    token,
    json: { sp_user_ref: spUserRef },
  });
  if (res.status !== 200) throw new Error(`provision failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.member_id as string;
}

/** Every SMS the service has sent through its outbox file, oldest first. */
export function outbox(server: TestServer): { phone: string; code: string; slug: string; at: string }[] {
  if (!existsSync(server.outbox)) return [];
  return readFileSync(server.outbox, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The latest code sent to `phone`. */
export function codeFor(server: TestServer, phone: string): string {
  const sent = outbox(server).filter((m) => m.phone === phone);
  const last = sent.at(-1);
  if (!last) throw new Error(`no code was sent to ${phone}`);
  return last.code;
}

/** Sends a code to a fresh phone of acme and returns the phone and its code. */
export async function sendCode(server: TestServer, phone = uniquePhone()) {
  const res = await server.api('/workspaces/acme/sms/send', { method: 'POST', json: { phone } });
  if (res.status !== 204) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { phone, code: codeFor(server, phone) };
}
