import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendAndRead, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** What one user owns: a conversation with an agent-produced file, a reply that can be read aloud, an order. */
interface Owned {
  conversationId: string;
  agentId: string;
  messageId: string;
  orderId: string;
}

/** Every way to read or touch what a user owns, as [label, request]. */
const probes = (o: Owned): [string, string, { method?: string; json?: unknown }][] => [
  ['messages', `/conversations/${o.conversationId}/messages`, {}],
  ['history', `/conversations/${o.conversationId}/history`, {}],
  ['stream', `/conversations/${o.conversationId}/stream?lastEventId=e000000000000000`, {}],
  ['send', '/conversations/send', { method: 'POST', json: { message: 'hi', conversationId: o.conversationId } }],
  ['interrupt', `/conversations/${o.conversationId}/interrupt`, { method: 'POST' }],
  ['file read', `/conversations/${o.conversationId}/files/read?path=report.md`, {}],
  ['file download', `/conversations/${o.conversationId}/files/download?path=data.csv`, {}],
  [
    'audio',
    `/agents/${o.agentId}/messages/${o.messageId}/audio`,
    { method: 'POST', json: { conversationId: o.conversationId } },
  ],
  [
    'audio stream',
    `/agents/${o.agentId}/messages/${o.messageId}/audio/stream`,
    { method: 'POST', json: { conversationId: o.conversationId } },
  ],
  ['payment status', `/payments/${o.orderId}/status`, {}],
];

describe("isolation: no user reads another user's or workspace's conversations, files, audio or payments", () => {
  let server: TestServer;
  /** Users by label: personal keys and session tokens of two workspaces. */
  const users = new Map<string, string>();
  const owned = new Map<string, Owned>();

  before(async () => {
    server = await startTestServer();
    users.set('alice (personal key)', 'pk_alice');
    users.set('bob (personal key)', 'pk_bob');
    users.set('acme visitor A', (await sessionToken(server)).token);
    users.set('acme visitor B', (await sessionToken(server)).token);
    users.set('globex visitor', (await sessionToken(server, 'globex', 'sk_globex_1')).token);
    // Each acme-side user owns a conversation with a file, a reply and a payment order.
    for (const label of ['alice (personal key)', 'acme visitor A']) {
      const token = users.get(label)!;
      const first = await sendAndRead(server, token, {
        message: '/file',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      const conversationId = first.sent.conversationId;
      const { records } = await sendAndRead(server, token, { message: '/pay 5', conversationId });
      const gate = records.find((r) => r.raw.type === 'payment_gate')!;
      const reply = records.find((r) => r.raw.type === 'assistant')!;
      owned.set(label, {
        conversationId,
        agentId: 'agent_demo',
        messageId: reply.raw.type === 'assistant' ? reply.raw.message.id : '',
        orderId: gate.raw.type === 'payment_gate' ? gate.raw.payment.orderId : '',
      });
    }
  });
  after(() => server.close());

  it('the owner reads each of them (the probes reach real data)', async () => {
    for (const [label, o] of owned) {
      for (const [what, path, init] of probes(o)) {
        if (what === 'stream' || what === 'send' || what.startsWith('audio')) continue;
        const res = await server.api(path, { ...init, token: users.get(label)! });
        assert.equal(res.status, 200, `${label} ${what}: ${JSON.stringify(res.body)}`);
      }
    }
  });

  it('every other user gets 404 for every one of them, and nothing changes', async () => {
    const matrix: string[] = [];
    for (const [owner, o] of owned) {
      const before = await server.api(`/conversations/${o.conversationId}/messages`, { token: users.get(owner)! });
      for (const [intruder, token] of users) {
        if (intruder === owner) continue;
        for (const [what, path, init] of probes(o)) {
          const res = await server.api(path, { ...init, token });
          if (res.status !== 404) matrix.push(`${intruder} → ${owner}'s ${what}: ${res.status}`);
          else assert.equal(typeof res.body.detail, 'string');
        }
      }
      const afterwards = await server.api(`/conversations/${o.conversationId}/messages`, { token: users.get(owner)! });
      assert.deepEqual(afterwards.body, before.body, `${owner}'s conversation changed`);
    }
    assert.deepEqual(matrix, []);
  });

  it('workspace keys and owner logins are refused on the conversation routes, also their own workspace', async () => {
    const o = owned.get('acme visitor A')!;
    for (const token of ['sk_acme_1', 'lt_acme_owner', 'sk_globex_1']) {
      for (const [what, path, init] of probes(o)) {
        const res = await server.api(path, { ...init, token });
        assert.equal(res.status, 401, `${token} ${what}`);
      }
    }
  });
});
