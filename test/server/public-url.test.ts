import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PaymentGateRawEvent } from '../../src/protocol/record-types.js';
import { readTurn, sessionToken } from '../helpers/conversation.js';
import { rawRequest, requestText } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A send written by hand, so its `Host` header is whatever a hostile client puts there. */
const sendWithHost = (server: TestServer, host: string, token: string, json: unknown) =>
  rawRequest(
    server.url,
    requestText(
      'POST',
      '/api/v2/conversations/send',
      { host, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      JSON.stringify(json),
    ),
  );

/** The `payUrl` of the payment card a `/pay 3` turn shows. */
async function payUrl(server: TestServer, token: string, sent: { conversationId: string; userEventId: string }) {
  const records = await readTurn(server, token, sent.conversationId, sent.userEventId);
  const gate = records.find((r) => r.raw.type === 'payment_gate');
  assert.ok(gate);
  return (gate.raw as PaymentGateRawEvent).payment.payUrl;
}

/** The hosts the second test sends, named to the service as `--link-host`. */
const NAMED = ['chat.example.com', 'chat.example.com:8443', '10.0.0.7:80', '[::1]:8787'];

describe('links the service hands out (payUrl, upload URLs)', () => {
  let server: TestServer;
  let log: string[];
  before(async () => {
    log = [];
    server = await startTestServer({
      linkHosts: NAMED,
      log: { level: 'info', destination: { write: (line) => log.push(line) } },
    });
  });
  after(() => server.close());

  it('never come from a Host header that is not a host: such a send is refused and stores nothing', async () => {
    const { token } = await sessionToken(server);
    for (const host of ['a"><script>alert(1)</script>', 'evil.example/path', 'x y', 'a@b', '']) {
      const res = await sendWithHost(server, host, token, { message: '/pay 3', targetAgentIds: ['agent_demo'] });
      assert.deepEqual(
        [res.status, JSON.parse(res.body)],
        [400, { detail: 'the Host header is not a valid host' }],
        host,
      );
    }
    const stored = (await server.ctx.db.get("SELECT COUNT(*) AS n FROM records WHERE raw LIKE '%script%'")) as {
      n: number;
    };
    assert.equal(stored.n, 0);
  });

  it('use a Host that is a name, an address or a bracketed IPv6 address, with its port, named by --link-host', async () => {
    const { token } = await sessionToken(server);
    for (const host of NAMED) {
      const res = await sendWithHost(server, host, token, {
        message: '/pay 3',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      assert.equal(res.status, 200, res.body);
      const url = await payUrl(server, token, JSON.parse(res.body));
      assert.match(url, new RegExp(`^http://${host.replace(/[[\].]/g, '\\$&')}/pay/ord_`));
    }
  });
  it('never name a host the service does not answer to: a forged Host gets links to the service’s own address', async () => {
    const { token } = await sessionToken(server);
    const own = server.instances[0]!.url;
    const port = new URL(own).port;
    for (const host of [
      'evil.example',
      'evil.example:8443',
      `evil.example:${port}`,
      'chat.example.com:8444',
      '10.0.0.8:80',
    ]) {
      const res = await sendWithHost(server, host, token, {
        message: '/pay 3',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      assert.equal(res.status, 200, res.body);
      const url = await payUrl(server, token, JSON.parse(res.body));
      assert.ok(url.startsWith(`${own}/pay/ord_`), `${host}: ${url}`);
    }
    const form = new FormData();
    form.append('file', new Blob(['hi']), 'hi.txt');
    const upload = await rawRequest(
      server.url,
      requestText('POST', '/api/v2/files/upload', { host: 'evil.example', authorization: `Bearer ${token}` }, ''),
    );
    assert.notEqual(upload.status, 200, 'an empty upload is refused before any link is made');
    const stored = (await server.ctx.db.get("SELECT COUNT(*) AS n FROM records WHERE raw LIKE '%evil.example%'")) as {
      n: number;
    };
    assert.equal(stored.n, 0, 'no stored record names the forged host');
    assert.ok(log.some((line) => line.includes('Host evil.example, which is not an address of this service')));
  });

  it('use the address the service listens on, and localhost beside a loopback address', async () => {
    const { token } = await sessionToken(server);
    const port = new URL(server.instances[0]!.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const res = await sendWithHost(server, host, token, {
        message: '/pay 3',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      assert.equal(res.status, 200, res.body);
      const url = await payUrl(server, token, JSON.parse(res.body));
      assert.ok(url.startsWith(`http://${host}/pay/ord_`), `${host}: ${url}`);
    }
  });

  it('--link-host must be a host name or address', async () => {
    await assert.rejects(startTestServer({ linkHosts: ['a/b'] }), /--link-host must be a host name or address/);
  });
});

describe('--public-url', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ publicUrl: 'https://chat.example.com/svc/' });
  });
  after(() => server.close());

  it('makes every link, whatever Host the request carried', async () => {
    const { token } = await sessionToken(server);
    const res = await sendWithHost(server, 'attacker.example', token, {
      message: '/pay 3',
      targetAgentIds: ['agent_demo'],
    });
    assert.equal(res.status, 200);
    assert.match(await payUrl(server, token, JSON.parse(res.body)), /^https:\/\/chat\.example\.com\/svc\/pay\/ord_/);
    const form = new FormData();
    form.append('file', new Blob(['hi']), 'hi.txt');
    const upload = await server.api('/files/upload', { method: 'POST', token, body: form });
    assert.match(upload.body.url, /^https:\/\/chat\.example\.com\/svc\/api\/v2\/files\/f_[\w-]{22}\/hi\.txt$/);
  });

  it('must be an http(s) URL without query, fragment or credentials', async () => {
    for (const publicUrl of [
      'ftp://chat.example.com',
      'https://chat.example.com/?a=1',
      'https://u:p@chat.example.com',
      'chat',
    ]) {
      await assert.rejects(startTestServer({ publicUrl }), /--public-url must be an http\(s\) URL/);
    }
  });
});
