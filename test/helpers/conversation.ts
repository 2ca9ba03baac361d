import assert from 'node:assert/strict';
import type { SendRequest, SendResult } from '../../src/protocol/conversation-types.js';
import type { AssistantRawEvent, ChatStreamRecord, ResultRawEvent } from '../../src/protocol/record-types.js';
import type { TestServer } from './server.js';
import { openSse } from './sse.js';
import { provision, uniqueRef } from './workspace.js';

/** Sends a message and expects 200. */
export async function send(server: TestServer, token: string, body: SendRequest): Promise<SendResult> {
  const res = await server.api('/conversations/send', { method: 'POST', token, json: body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Reads a conversation's stream after `after` until the turn's `result`; returns the records up to it. */
export async function readTurn(
  server: TestServer,
  token: string,
  conversationId: string,
  after: string,
): Promise<ChatStreamRecord[]> {
  const reader = await openSse(streamUrl(server, conversationId, after), { token });
  try {
    return await reader.untilResult();
  } finally {
    reader.close();
  }
}

/** Sends and reads the whole reply. */
export async function sendAndRead(server: TestServer, token: string, body: SendRequest) {
  const sent = await send(server, token, body);
  const records = await readTurn(server, token, sent.conversationId, sent.userEventId!);
  return { sent, records };
}

export const streamUrl = (server: TestServer, conversationId: string, lastEventId?: string) =>
  `${server.url}/api/v2/conversations/${encodeURIComponent(conversationId)}/stream${
    lastEventId ? `?lastEventId=${encodeURIComponent(lastEventId)}` : ''
  }`;

/** A session token of a fresh acme member (minted over HTTP with the workspace key). */
export async function sessionToken(server: TestServer, slug = 'acme', key = 'sk_acme_1') {
  const ref = uniqueRef('chat');
  await provision(server, ref, slug, key);
  const res = await server.api(`/workspaces/${slug}/sessions`, {
    method: 'POST',
    token: key,
    json: { sp_user_ref: ref },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { token: res.body.token as string, userId: res.body.user_id as string };
}

export const assistants = (records: ChatStreamRecord[]) =>
  records.filter((r) => r.raw.type === 'assistant').map((r) => r.raw as AssistantRawEvent);

export const resultOf = (records: ChatStreamRecord[]) =>
  records.find((r) => r.raw.type === 'result')?.raw as ResultRawEvent;

/** The text blocks of every assistant message, joined. */
export const replyText = (records: ChatStreamRecord[]) =>
  assistants(records)
    .flatMap((raw) => raw.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])))
    .join('\n');

/** The concatenated `assistant_delta` text. */
export const deltaText = (records: ChatStreamRecord[]) =>
  records.flatMap((r) => (r.raw.type === 'assistant_delta' ? [r.raw.text] : [])).join('');

export const kinds = (records: ChatStreamRecord[]) => records.map((r) => r.raw.type);
