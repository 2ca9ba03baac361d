import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BadRequestError,
  extractPaymentGate,
  FilesClient,
  NotFoundError,
  type SvcClient,
  toPart,
  type UploadedFile,
} from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);

describe('client: files and payments', () => {
  let server: TestServer;
  let client: SvcClient;
  before(async () => {
    server = await startTestServer();
    client = await visitorClient(server, { agentId: 'agent_demo' });
  });
  after(() => server.close());

  it('uploads a File; its capability URL serves the same bytes', async () => {
    const uploaded = await client.files.upload(new File([PNG], 'dot.png', { type: 'image/png' }));
    assert.equal(uploaded.filename, 'dot.png');
    assert.equal(uploaded.mimeType, 'image/png');
    assert.equal(uploaded.size, PNG.length);
    assert.equal(uploaded.provider, 'local');
    const res = await fetch(uploaded.url);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PNG);
  });

  it('uploads raw data with a name: a string, bytes, a Blob; options override name and type', async () => {
    const text = await client.files.upload({ data: 'hello, file', filename: 'note.txt' });
    assert.equal(text.filename, 'note.txt');
    assert.match(text.mimeType, /^text\/plain/);
    assert.equal(await (await fetch(text.url)).text(), 'hello, file');

    const bytes = await client.files.upload({ data: PNG, filename: 'raw.bin' });
    assert.equal(bytes.mimeType, 'application/octet-stream');
    assert.equal(bytes.size, PNG.length);

    const renamed = await client.files.upload(new Blob(['a,b\n1,2\n']), {
      filename: 'table.csv',
      contentType: 'text/csv',
      agentId: 'agent_demo',
    });
    assert.equal(renamed.filename, 'table.csv');
    assert.equal(renamed.mimeType, 'text/csv');
  });

  it('turns uploads into message parts and sends them', async () => {
    const image = await client.files.uploadPart(new File([PNG], 'dot.png', { type: 'image/png' }));
    assert.equal(image.type, 'image_url');
    const doc = await client.files.uploadPart({ data: '# Notes', filename: 'notes.md', contentType: 'text/markdown' });
    assert.equal(doc.type, 'file');
    const forced = await client.files.uploadPart(new File([PNG], 'dot.png', { type: 'image/png' }), { as: 'file' });
    assert.deepEqual(forced.type === 'file' && forced.file.filename, 'dot.png');

    const turn = await client.sendMessage('', { parts: [image, doc], newConversation: true });
    const { entries } = await client.chat.messages(turn.conversationId);
    const user = entries.find((r) => r.raw.type === 'user')!;
    assert.deepEqual(user.raw.type === 'user' && user.raw.parts, [image, doc]);
  });

  it('toPart converts without a call', () => {
    const uploaded: UploadedFile = {
      url: 'https://files.example/f_1/a.png',
      filename: 'a.png',
      size: 3,
      mimeType: 'image/png',
      provider: 'local',
    };
    assert.deepEqual(toPart(uploaded), { type: 'image_url', image_url: { url: uploaded.url } });
    assert.deepEqual(client.files.toPart(uploaded, 'file'), {
      type: 'file',
      file: { filename: 'a.png', file_url: uploaded.url },
    });
    assert.deepEqual(toPart({ ...uploaded, mimeType: 'application/pdf', filename: 'a.pdf' }), {
      type: 'file',
      file: { filename: 'a.pdf', file_url: uploaded.url },
    });
    assert.deepEqual(toPart(uploaded, 'text'), { type: 'text', text: `[a.png](${uploaded.url})` });
  });

  it('reads and downloads the files an agent wrote; paths cannot escape', async () => {
    const turn = await client.sendMessage('/file', { newConversation: true });
    const read = await client.files.readConversationFile(turn.conversationId, 'report.md');
    assert.equal(read.encoding, 'utf-8');
    assert.match(read.mimeType, /^text\/markdown/);
    assert.ok(read.content.length > 0);

    const files = new FilesClient(client.http);
    const csv = await files.downloadConversationFile(turn.conversationId, 'data.csv');
    assert.ok(csv instanceof Blob);
    assert.match(csv.type, /^text\/csv/);
    assert.match(await csv.text(), /,/);

    await assert.rejects(
      client.files.readConversationFile(turn.conversationId, '../../etc/passwd'),
      (err: unknown) => err instanceof BadRequestError && err.message === 'path escapes the conversation workspace',
    );
    await assert.rejects(
      client.files.downloadConversationFile(turn.conversationId, 'missing.txt'),
      (err: unknown) => err instanceof NotFoundError && err.message === 'file not found',
    );
  });

  it('payments.status follows an order from pending to paid; another user gets 404', async () => {
    const turn = await client.sendMessage('/pay 12.5', { newConversation: true });
    const payment = turn.records.map(extractPaymentGate).find((p) => p !== null)!;
    assert.deepEqual(await client.payments.status(payment.orderId), { status: 'pending', amountCny: 12.5 });
    await fetch(`${payment.payUrl}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal((await client.payments.status(payment.orderId)).status, 'paid');
    const stranger = await visitorClient(server);
    await assert.rejects(
      stranger.payments.status(payment.orderId),
      (err: unknown) => err instanceof NotFoundError && err.message === 'order not found',
    );
  });
});
