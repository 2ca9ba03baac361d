import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, SvcClient, type SvcClientConfig } from '../../src/index.js';
import { MCP_TOKENS } from '../helpers/secrets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uniquePhone } from '../helpers/workspace.js';

const MCP_SECRET = MCP_TOKENS.session;

describe('secrets: tokens never appear in URLs or in the service log', () => {
  let server: TestServer;
  const log: string[] = [];
  /** Every URL the client library requested. */
  const urls: string[] = [];
  /** Every credential used in the session below. */
  const secrets = new Set(['sk_acme_1', 'lt_acme_owner', 'pk_alice', MCP_SECRET]);

  const recordingFetch: typeof fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return fetch(input, init);
  };
  const client = (config: SvcClientConfig) =>
    new SvcClient({ baseUrl: server.url, fetch: recordingFetch, maxRetries: 0, ...config });
  /** Runs a call whose refusal is part of the session (a wrong token, speech without a synthesizer). */
  const refused = (call: Promise<unknown>) =>
    call.catch((err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
    });

  before(async () => {
    // No SMS outbox: codes go to the log, the development channel, as on a fresh `npm start`.
    server = await startTestServer({
      smsOutbox: undefined,
      log: { level: 'debug', destination: { write: (line) => log.push(line) } },
    });
  });
  after(() => server.close());

  it('through a whole session: sign-in, chat, streams, files, audio, payments, training and failures', async () => {
    const admin = client({ apiKey: 'sk_acme_1' });
    await admin.workspaces.whoami();
    const session = await admin.workspace('acme').startVisitorSession({ sp_user_ref: 'secret-visitor' });
    secrets.add(session.token);
    await admin.workspaces.grantCredits('acme', session.user_id, { amount: 1, idempotency_key: 'secret-grant' });

    const phone = uniquePhone();
    await admin.workspaces.sendSmsCode('acme', { phone });
    const code = /sms code for \S+ in acme: (\d{6})/.exec(log.join('\n'))?.[1];
    assert.ok(code, 'the code reached the log');
    const signedIn = await admin.workspaces.verifySmsCode('acme', { phone, code });
    secrets.add(signedIn.token);

    const visitor = client({ apiKey: session.token, agentId: 'agent_demo', mcpTokens: { github: MCP_SECRET } });
    const files = await visitor.sendMessage('/file', { newConversation: true });
    const conversationId = files.conversationId;
    await visitor.sendMessage('/error', { conversationId });
    const pay = await visitor.sendMessage('/pay 2', { conversationId });
    for await (const record of visitor.chat.stream(conversationId, { lastEventId: files.records[0]!.id })) {
      if (record.id === pay.lastEventId) break;
    }
    await visitor.chat.messages(conversationId);
    await visitor.chat.history(conversationId, { turns: 1 });
    await visitor.files.readConversationFile(conversationId, 'report.md');
    await visitor.files.downloadConversationFile(conversationId, 'data.csv');
    await visitor.files.upload({ data: 'a,b', filename: 'secret.csv', contentType: 'text/csv' });
    const messageId = files.records.find((r) => r.raw.type === 'assistant')!;
    await refused(
      visitor.chat.messageAudio(
        'agent_demo',
        messageId.raw.type === 'assistant' ? messageId.raw.message.id : '',
        conversationId,
      ),
    );
    const gate = pay.records.find((r) => r.raw.type === 'payment_gate')!;
    await visitor.payments.status(gate.raw.type === 'payment_gate' ? gate.raw.payment.orderId : '');
    await visitor.chat.submitConnectorCredentials('github', { api_key: MCP_SECRET });
    await client({ apiKey: signedIn.token }).sendMessage('hello', { targetAgentIds: ['agent_echo'] });

    const owner = client({ apiKey: 'lt_acme_owner', loginType: 'owner' });
    await owner.training('agent_echo').send('training');
    await refused(client({ apiKey: 'st_wrong_token_value_for_the_log' }).chat.messages(conversationId));
    secrets.add('st_wrong_token_value_for_the_log');

    assert.ok(urls.length > 20 && log.length > 0, 'the session made requests and the service logged');
    const leaks = [...secrets].flatMap((secret) => [
      ...urls.filter((url) => url.includes(secret)).map((url) => `URL ${url}`),
      ...log.filter((line) => line.includes(secret)).map((line) => `log ${line}`),
    ]);
    assert.deepEqual(leaks, []);
    // Tool credentials reach the runtime only: no stored record holds them.
    const { entries } = await visitor.chat.messages(conversationId);
    assert.ok(!JSON.stringify(entries).includes(MCP_SECRET));
  });
});
