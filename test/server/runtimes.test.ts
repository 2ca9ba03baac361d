import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SendRequest } from '../../src/protocol/conversation-types.js';
import type {
  AgentStatusRawEvent,
  AttachmentRawEvent,
  ChatStreamRecord,
  PaymentGateRawEvent,
  ResultRawEvent,
  ToolUseBlock,
} from '../../src/protocol/record-types.js';
import {
  assistants,
  deltaText,
  kinds,
  replyText,
  resultOf,
  send,
  sendAndRead,
  sessionToken,
} from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** Sends to the demo agent in a fresh conversation of a fresh user and reads the whole reply. */
async function demo(message: string, extra: Partial<SendRequest> = {}) {
  const { token } = await sessionToken(server);
  const turn = await sendAndRead(server, token, {
    message,
    targetAgentIds: ['agent_demo'],
    newConversation: true,
    ...extra,
  });
  return { ...turn, token };
}

const toolUses = (records: ChatStreamRecord[]) =>
  assistants(records).flatMap((raw) => raw.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use'));

const statuses = (records: ChatStreamRecord[]) =>
  records.filter((r) => r.raw.type === 'agent_status').map((r) => (r.raw as AgentStatusRawEvent).status);

describe('echo runtime', () => {
  it('replies `Echo: <message>` in three deltas, the same every time', async () => {
    const texts: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const { records } = await sendAndRead(server, 'pk_alice', {
        message: 'déjà vu 🎉',
        targetAgentIds: ['agent_echo'],
        newConversation: true,
      });
      texts.push(records.flatMap((r) => (r.raw.type === 'assistant_delta' ? [r.raw.text] : [])));
      assert.equal(replyText(records), 'Echo: déjà vu 🎉');
    }
    assert.equal(texts[0]!.length, 3);
    assert.deepEqual(texts[0], texts[1]);
    assert.equal(texts[0]!.join(''), 'Echo: déjà vu 🎉');
  });
});

describe('demo runtime', () => {
  it('/help lists the commands', async () => {
    const { records } = await demo('/help');
    const text = replyText(records);
    for (const command of ['/markdown', '/slow', '/form', '/connect', '/pay', '/file', '/image', '/delegate']) {
      assert.ok(text.includes(command), `/help mentions ${command}`);
    }
    assert.equal(deltaText(records), text);
    assert.deepEqual(statuses(records), ['thinking', 'typing', 'idle']);
    // docs/server.md lists the commands as /help does, one line each.
    const listed = text.slice(text.indexOf('- `/'));
    assert.ok(readFileSync('docs/server.md', 'utf8').includes(listed), 'docs/server.md lists the commands of /help');
  });

  it('answers free text briefly and points at /help, instead of repeating the list', async () => {
    for (const message of ['what can you do?', 'hello']) {
      const { records } = await demo(message);
      const text = replyText(records);
      assert.match(text, /`\/help`/);
      assert.ok(!text.includes('/markdown'), `${message}: ${text}`);
      assert.ok(text.length < 120, `${text.length} characters: ${text}`);
      assert.equal(deltaText(records), text);
      assert.deepEqual(statuses(records), ['thinking', 'typing', 'idle']);
    }
  });

  it('offers commands to tap after free text, each one a command that shows something', async () => {
    const { records } = await demo('hi, what is this?');
    const [offer] = toolUses(records);
    assert.equal(offer?.name, 'suggest_replies');
    const suggestions = offer!.input.suggestions as string[];
    assert.deepEqual(suggestions, ['/markdown', '/form', '/pay 9.9', '/help']);
    for (const suggestion of suggestions) {
      const tapped = await demo(suggestion);
      assert.equal(resultOf(tapped.records)?.subtype, 'success', suggestion);
      assert.ok(!replyText(tapped.records).includes('tap a command below'), `${suggestion} is a command`);
    }
  });

  it('/markdown streams a long formatted reply in many small deltas', async () => {
    const { records } = await demo('/markdown');
    const text = replyText(records);
    assert.ok(text.length > 5000, `${text.length} characters`);
    assert.equal(deltaText(records), text);
    assert.ok(records.filter((r) => r.raw.type === 'assistant_delta').length > 50);
    for (const construct of [/^# /m, /^## /m, /^- /m, /^1\. /m, /^```ts$/m, /^\| --- \|/m, /\]\(https:\/\//]) {
      assert.match(text, construct);
    }
  });

  it('/slow N streams steadily for about N seconds', async () => {
    const { records } = await demo('/slow 1');
    const result = resultOf(records);
    assert.equal(result.subtype, 'success');
    assert.ok(result.duration_ms >= 900, `${result.duration_ms} ms`);
    assert.ok(records.filter((r) => r.raw.type === 'assistant_delta').length >= 9);
  });

  it('/tool shows tool calls and the tool status', async () => {
    const { records } = await demo('/tool');
    assert.deepEqual(
      toolUses(records).map((t) => t.name),
      ['get_weather', 'list_events'],
    );
    assert.ok(statuses(records).includes('tool'));
    assert.match(replyText(records), /sunny/);
  });

  it('/form shows a collect_info card and answers its submission or skip', async () => {
    const { records, sent, token } = await demo('/form');
    const [card] = toolUses(records);
    assert.equal(card?.name, 'collect_info');
    const fields = card!.input.fields as { type: string; name: string }[];
    assert.deepEqual([...new Set(fields.map((f) => f.type))].sort(), [
      'date',
      'email',
      'number',
      'phone',
      'select',
      'text',
      'textarea',
    ]);
    const submitted = await sendAndRead(server, token, {
      message: '',
      conversationId: sent.conversationId,
      toolAction: true,
      metadata: {
        infoCollect: { action: 'submit', values: { name: 'Ada', email: 'ada@example.com' }, toolUseId: card!.id },
      },
    });
    assert.match(replyText(submitted.records), /Thank you/);
    assert.match(replyText(submitted.records), /ada@example\.com/);
    const skipped = await sendAndRead(server, token, {
      message: '',
      conversationId: sent.conversationId,
      toolAction: true,
      metadata: { infoCollect: { action: 'skip' } },
    });
    assert.match(replyText(skipped.records), /skip/);
  });

  it('/connect NAME asks for credentials until the user has stored them', async () => {
    const { records, sent, token } = await demo('/connect github');
    const [card] = toolUses(records);
    assert.equal(card?.name, 'setup_connector');
    assert.equal(card!.input.connectorTypeId, 'github');
    // The card's title writes the service's name as the service does.
    assert.equal(card!.input.name, 'GitHub');
    const fields = card!.input.fields as { name: string; secret?: boolean }[];
    assert.deepEqual(
      fields.map((f) => [f.name, !!f.secret]),
      [
        ['api_key', true],
        ['account', false],
      ],
    );
    const stored = await server.api('/profile/credentials/github', {
      method: 'PUT',
      token,
      json: { credentials: { api_key: 'ghp_secret', account: 'ada' } },
    });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const notified = await sendAndRead(server, token, {
      message: '',
      conversationId: sent.conversationId,
      toolAction: true,
      metadata: { connectorSetup: { connectorTypeId: 'github', status: 'submitted' } },
    });
    // The agent names the service as its card does.
    assert.match(replyText(records), /To use \*\*GitHub\*\* I need your own API key/);
    assert.match(replyText(notified.records), /\*\*GitHub\*\* is connected now/);
    assert.ok(!replyText(notified.records).includes('ghp_secret'));
    const again = await sendAndRead(server, token, { message: '/connect github', conversationId: sent.conversationId });
    assert.match(replyText(again.records), /\*\*GitHub\*\* is connected/);
    assert.deepEqual(toolUses(again.records), []);
  });

  it('/connect with capitals or a leading _ or -: every card it shows can be saved (one rule for connector ids)', async () => {
    const { records, token } = await demo('/connect Notion');
    const [card] = toolUses(records);
    assert.deepEqual([card!.input.connectorTypeId, card!.input.name], ['notion', 'Notion']);
    const stored = await server.api(`/profile/credentials/${card!.input.connectorTypeId}`, {
      method: 'PUT',
      token,
      json: { credentials: { api_key: 'secret_notion' } },
    });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    for (const name of ['_notion', '-notion']) {
      const refused = await demo(`/connect ${name}`);
      assert.deepEqual(toolUses(refused.records), [], name);
      assert.match(replyText(refused.records), /Tell me which service to connect/);
    }
  });

  it('/pay AMOUNT shows a payment card for a real pending order', async () => {
    const { records, token } = await demo('/pay 9.9 60');
    const gate = records.find((r) => r.raw.type === 'payment_gate');
    assert.ok(gate, kinds(records).join(' '));
    assert.equal(gate.event, 'payment_gate');
    assert.equal(gate.agentId, 'agent_demo');
    const { payment } = gate.raw as PaymentGateRawEvent;
    assert.equal(payment.amountCny, 9.9);
    assert.equal(payment.payUrl, `${server.url}/pay/${payment.orderId}`);
    const expiresIn = Date.parse(payment.expiresAt) - Date.now();
    assert.ok(expiresIn > 30_000 && expiresIn <= 60_000);
    const status = await server.api(`/payments/${payment.orderId}/status`, { token });
    assert.deepEqual(status.body, { status: 'pending', amountCny: 9.9 });

    const usage = await demo('/pay nothing');
    assert.match(replyText(usage.records), /Usage/);
    assert.ok(!usage.records.some((r) => r.raw.type === 'payment_gate'));
  });

  it('/pay answers an amount or an expiry it cannot take with a sentence, never a failed turn', async () => {
    for (const [command, says] of [
      ['/pay 0.001', /The amount must be from CN¥0\.01 to CN¥100,000\.00\./],
      ['/pay 1.005', /An amount has at most 2 decimal places/],
      ['/pay 5 99999999999999999999', /An order stays open for at most 7 days \(604800 seconds\)\./],
      ['/pay 1e9', /The amount must be from/],
    ] as const) {
      const { records } = await demo(command);
      assert.equal(resultOf(records).subtype, 'success', command);
      assert.match(replyText(records), says, command);
      assert.ok(!records.some((r) => r.raw.type === 'payment_gate'), command);
    }
  });

  it('/file writes files into the conversation folder and announces them', async () => {
    const { records, sent, token } = await demo('/file');
    const files = records.filter((r) => r.raw.type === 'attachment').map((r) => (r.raw as AttachmentRawEvent).file);
    assert.deepEqual(
      files.map((f) => [f.name, f.workspacePath, f.mimeType]),
      [
        ['report.md', 'report.md', 'text/markdown'],
        ['data.csv', 'data.csv', 'text/csv'],
      ],
    );
    for (const file of files) {
      const read = await server.api(`/conversations/${sent.conversationId}/files/read?path=${file.workspacePath}`, {
        token,
      });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(Buffer.byteLength(read.body.content), file.size);
    }
  });

  it('an agent names its files by the upload name rule: no reordering characters, no folders', async () => {
    for (const [named, path, shown] of [
      ['invoice\u202egpj.exe', 'invoice\u202egpj.exe', 'invoice\ufffdgpj.exe'],
      ['q3\u2067report\u2069.md', 'q3\u2067report\u2069.md', 'q3\ufffdreport\ufffd.md'],
      ['..\\..\\notes.md', 'notes.md', 'notes.md'],
      ['reports/q3.md', 'q3.md', 'q3.md'],
    ]) {
      const { records, sent, token } = await demo(`/file ${named}`);
      // The stream reads the records as stored.
      const file = records.map((r) => r.raw).find((raw): raw is AttachmentRawEvent => raw.type === 'attachment')!.file;
      assert.deepEqual([file.name, file.workspacePath], [shown, path], JSON.stringify(named));
      const download = await server.api(
        `/conversations/${sent.conversationId}/files/download?path=${encodeURIComponent(path!)}`,
        { token },
      );
      assert.equal(download.status, 200, JSON.stringify(named));
      assert.equal(
        download.headers.get('content-disposition'),
        `attachment; filename*=UTF-8''${encodeURIComponent(shown!)}`,
        JSON.stringify(named),
      );
    }
  });

  it('/image shows an image that can be fetched', async () => {
    const { records } = await demo('/image');
    const image = assistants(records)
      .flatMap((raw) => raw.message.content)
      .find((b) => b.type === 'image');
    assert.ok(image && image.type === 'image');
    const res = await fetch(image.source.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(await res.text(), /^<svg /);
  });

  it('/delegate hands the task to another agent of the workspace', async () => {
    const { records } = await demo('/delegate summarize the report');
    const [handover] = toolUses(records);
    assert.equal(handover?.name, 'delegate');
    assert.deepEqual(handover!.input, { agentId: 'agent_scout', agentName: 'Scout', task: 'summarize the report' });
    const scout = records.filter((r) => r.agentId === 'agent_scout');
    assert.ok(scout.some((r) => r.raw.type === 'assistant'));
    assert.match(replyText(scout), /Scout here.*summarize the report/);
    assert.deepEqual(resultOf(records).agentIds, ['agent_demo', 'agent_scout']);
    const handoverAt = records.findIndex((r) => r.raw.type === 'assistant' && toolUses([r]).length > 0);
    assert.ok(records.findIndex((r) => r.agentId === 'agent_scout') > handoverAt);
  });

  it('/think sends a thinking block with its text', async () => {
    const { records } = await demo('/think');
    const [reply] = assistants(records);
    assert.deepEqual(
      reply!.message.content.map((b) => b.type),
      ['thinking', 'text'],
    );
  });

  it('/error ends the turn with an error result, keeping the text streamed before', async () => {
    const { records, sent, token } = await demo('/error');
    const result = resultOf(records);
    assert.equal(result.subtype, 'error');
    assert.equal(result.is_error, true);
    assert.equal(result.error, 'This reply failed on purpose, to show what a failed reply looks like.');
    assert.match(replyText(records), /Trying something/);
    assert.equal(statuses(records).at(-1), 'idle');
    const next = await sendAndRead(server, token, { message: '/help', conversationId: sent.conversationId });
    assert.equal(resultOf(next.records).subtype, 'success');
  });
});

describe('turns across restarts', () => {
  /** The results stored in a conversation, read from its history (no stream needed). */
  const results = async (service: TestServer, conversationId: string) => {
    const res = await service.api(`/conversations/${conversationId}/messages`, { token: 'pk_alice' });
    return (res.body.entries as ChatStreamRecord[])
      .filter((r) => r.raw.type === 'result')
      .map((r) => r.raw as ResultRawEvent);
  };

  it('ends a turn left running by a stopped or crashed process with an error result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
    const files = { db: join(dir, 'svc.db'), filesDir: join(dir, 'files') };
    try {
      const crashed = await startTestServer(files);
      const running = await send(crashed, 'pk_alice', { message: '/slow 30', targetAgentIds: ['agent_demo'] });
      // A second process opens the same database while the first still "runs" the turn, as after a crash.
      const restarted = await startTestServer({ ...files, fixture: undefined });
      await crashed.close();
      assert.deepEqual(
        (await results(restarted, running.conversationId)).map((r) => [r.subtype, r.error]),
        [['error', 'the service restarted during this reply']],
      );

      // A reply running while the service stops is ended as well, once.
      await send(restarted, 'pk_alice', { message: '/slow 30', conversationId: running.conversationId });
      await restarted.close();
      const third = await startTestServer({ ...files, fixture: undefined });
      let thirdClosed = false;
      try {
        assert.deepEqual(
          (await results(third, running.conversationId)).map((r) => [r.subtype, r.error]),
          [
            ['error', 'the service restarted during this reply'],
            ['error', 'the service stopped during this reply'],
          ],
        );

        // A reply whose end the database refuses while the service stops: it stops all the same (it does not
        // try again and again), and the next start ends the reply. The trigger lives as long as the connection.
        await send(third, 'pk_alice', { message: '/slow 30', conversationId: running.conversationId });
        await third.ctx.db.run(
          "CREATE TEMP TRIGGER refuse_end BEFORE UPDATE ON turns BEGIN SELECT RAISE(ABORT, 'refused'); END",
        );
        await third.close();
        thirdClosed = true;
        const fourth = await startTestServer({ ...files, fixture: undefined });
        try {
          assert.deepEqual(
            (await results(fourth, running.conversationId)).map((r) => r.error),
            [
              'the service restarted during this reply',
              'the service stopped during this reply',
              'the service restarted during this reply',
            ],
          );
        } finally {
          await fourth.close();
        }
      } finally {
        if (!thirdClosed) await third.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
