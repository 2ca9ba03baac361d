/*
 * The types openapi-typescript generates from the OpenAPI document, held against the client's own wire types
 * (src/protocol/*-types.ts) both ways, for the main operations: a client generated from the document reads and
 * sends what SvcClient does. Outside the project's typecheck: openapi-conformance.test.ts generates the module
 * `openapi-generated` from the live document and compiles this file with it.
 */

import createClient from 'openapi-fetch';
import type { components, paths } from 'openapi-generated';
import type * as Wire from '../../src/protocol/index.js';

type Schemas = components['schemas'];
type Json = 'application/json';
/** The JSON body an operation takes. */
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { [K in Json]: infer B } };
}
  ? B
  : never;
/** What an operation answers with `status`. */
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { [J in Json]: infer A } } };
}
  ? A
  : never;
/** The query an operation takes. */
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } }
  ? Q
  : never;

/** Compiles only where A and B are assignable to each other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <A, B>(holds: Same<A, B>) => holds;

same<Schemas['ChatStreamRecord'], Wire.ChatStreamRecord>(true);
same<Schemas['ChatRawEvent'], Wire.ChatRawEvent>(true);
same<Schemas['ContentBlock'], Wire.ContentBlock>(true);
same<Schemas['ToolResultBlock'], Wire.ToolResultBlock>(true);
same<Schemas['MessagePart'], Wire.MessagePart>(true);
same<Schemas['FileAttachment'], Wire.FileAttachment>(true);
same<Schemas['PaymentGatePayload'], Wire.PaymentGatePayload>(true);
same<Schemas['Error'], { detail: string }>(true);
// Control: the generated types are strict enough to tell a record without its `seq` apart.
// @ts-expect-error
same<Schemas['ChatStreamRecord'], Omit<Wire.ChatStreamRecord, 'seq'>>(true);

same<Answer<'/api/v2/workspaces/whoami', 'get'>, Wire.Workspace>(true);
same<Body<'/api/v2/workspaces/{slug}/members', 'post'>, Wire.ProvisionMemberRequest>(true);
same<Answer<'/api/v2/workspaces/{slug}/members', 'post'>, Wire.ProvisionResult>(true);
same<Answer<'/api/v2/workspaces/{slug}/members', 'get'>, Wire.MemberList>(true);
same<Body<'/api/v2/workspaces/{slug}/members/{memberId}/credits', 'post'>, Wire.GrantCreditsRequest>(true);
same<Answer<'/api/v2/workspaces/{slug}/members/{memberId}/credits', 'post'>, Wire.GrantResult>(true);
same<Body<'/api/v2/workspaces/{slug}/sessions', 'post'>, Wire.MintSessionRequest>(true);
same<Answer<'/api/v2/workspaces/{slug}/sessions', 'post'>, Wire.SessionToken>(true);
same<Answer<'/api/v2/workspaces/{slug}/sms/verify', 'post'>, Wire.SessionToken>(true);
same<Answer<'/api/v2/workspaces/{slug}/agents', 'get'>, Wire.AgentList>(true);
same<Answer<'/api/v2/workspaces/{slug}/agents/{agentId}', 'get'>, Wire.SingleAgent>(true);
same<Answer<'/api/v2/workspaces/{slug}/sms/limit', 'get'>, Wire.SmsLimit>(true);

same<Body<'/api/v2/conversations/send', 'post'>, Wire.SendRequest>(true);
same<Answer<'/api/v2/conversations/send', 'post'>, Wire.SendResult>(true);
same<Answer<'/api/v2/conversations/{id}/messages', 'get'>, Wire.MessagesResult>(true);
same<Query<'/api/v2/conversations/{id}/history', 'get'>, Wire.HistoryOptions>(true);
same<Answer<'/api/v2/conversations/{id}/history', 'get'>, Wire.HistoryResult>(true);
same<Answer<'/api/v2/conversations/{id}/interrupt', 'post'>, Wire.InterruptResult>(true);
same<Answer<'/api/v2/agents/{agentId}/messages/{messageId}/audio', 'post'>, Wire.MessageAudioResult>(true);
same<Answer<'/api/v2/profile/credentials/{connectorTypeId}', 'put'>, Wire.ConnectorCredentialsResult>(true);
same<Answer<'/api/v2/files/upload', 'post'>, Wire.UploadedFile>(true);
same<Answer<'/api/v2/conversations/{id}/files/read', 'get'>, Wire.ConversationFile>(true);
same<Answer<'/api/v2/payments/{orderId}/status', 'get'>, Wire.PaymentStatusResult>(true);
same<Answer<'/api/v2/conversations/{id}/regenerate', 'post'>, Wire.SendResult>(true);
same<Body<'/api/v2/conversations/{id}/edit', 'post'>, Wire.ReplaceRequest & { message: string }>(true);
same<Body<'/api/v2/conversations/{id}/messages/{messageId}/feedback', 'put'>, Wire.FeedbackRequest>(true);
same<Answer<'/api/v2/conversations/{id}/messages/{messageId}/feedback', 'put'>, Wire.Feedback>(true);
same<Answer<'/api/v2/workspaces/{slug}/feedback', 'get'>, Wire.FeedbackPage>(true);
same<Answer<'/api/v2/agents/{agentId}/prompts', 'get'>, Wire.AgentPrompts>(true);

same<Body<'/api/v2/agents/{id}/dev/send', 'post'>, Wire.TrainingSendRequest>(true);
same<Answer<'/api/v2/agents/{id}/dev/send', 'post'>, Wire.TrainingSendResult>(true);
same<Answer<'/api/v2/agents/{id}/messages/history', 'get'>, Wire.HistoryResult>(true);

/** Calls an integrator writes with openapi-fetch on the generated types: each compiles as SvcClient makes it. */
export async function generatedClient(conversationId: string, key: string) {
  const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8787', headers: { authorization: 'Bearer pk_…' } });
  const path = { id: conversationId };
  const sent: Wire.SendResult | undefined = (
    await client.POST('/api/v2/conversations/send', {
      params: { header: { 'idempotency-key': key } },
      body: { message: 'Hello', conversationId },
    })
  ).data;
  const page: Wire.HistoryResult | undefined = (
    await client.GET('/api/v2/conversations/{id}/history', {
      params: { path, query: { before: sent?.userEventId, includeThinking: true, turns: 2 } },
    })
  ).data;
  const stopped: Wire.InterruptResult | undefined = (
    await client.POST('/api/v2/conversations/{id}/interrupt', { params: { path } })
  ).data;
  const refused = (await client.GET('/api/v2/conversations/{id}/messages', { params: { path } })).error;
  const detail: string | undefined = refused?.detail;
  return { page, stopped, detail };
}
