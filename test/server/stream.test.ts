import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { DEFAULT_QUOTAS, LIMITS } from '../../server/services/limits.js';
import { cursorOf, parseCursor } from '../../server/store/record-rows.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import {
  deltaText,
  kinds,
  readTurn,
  resultOf,
  send,
  sendAndRead,
  sessionToken,
  streamUrl,
} from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  FROM_START,
  fillConversation,
  filledConversation,
  frameBytes,
  openStalled,
  watchBuffers,
  withSlowReaderServer,
  withStalledReaders,
} from '../helpers/slow-readers.js';
import { openSse } from '../helpers/sse.js';

// One service for the file (closing one that served streams takes seconds); heartbeats every 50 ms.
let server: TestServer;
before(async () => {
  server = await startTestServer({ heartbeatMs: 50 });
});
after(() => server.close());

/** Every record of a conversation, read from its start until `count` records have arrived. */
async function allRecords(conversationId: string, count: number): Promise<ChatStreamRecord[]> {
  const reader = await openSse(streamUrl(server, conversationId, FROM_START), { token: 'pk_alice' });
  try {
    return [...(await reader.waitFor((records) => records.length >= count))];
  } finally {
    reader.close();
  }
}

describe('stream framing', () => {
  it('sends `: connected` at once, then one `id`/`event: record`/`data` event per record', async () => {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: 'frame me',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const controller = new AbortController();
    const res = await fetch(streamUrl(server, sent.conversationId, FROM_START), {
      headers: { authorization: 'Bearer pk_alice' },
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('"type":"result"') && text.endsWith('\n\n')) break;
    }
    controller.abort();

    assert.ok(text.startsWith(': connected\n\n'));
    const events = text
      .split('\n\n')
      .filter((block) => block !== '' && !block.startsWith(':'))
      .map((block) => block.split('\n'));
    const all = [sent.userMessage!, ...records];
    assert.equal(events.length, all.length);
    for (const [i, lines] of events.entries()) {
      assert.equal(lines.length, 3);
      assert.equal(lines[0], `id: ${all[i]!.id}`);
      assert.equal(lines[1], 'event: record');
      assert.ok(lines[2]!.startsWith('data: '));
      assert.deepEqual(JSON.parse(lines[2]!.slice('data: '.length)), all[i]);
    }
  });

  it('sends `: ping` comments every heartbeat interval', async () => {
    const sent = await send(server, 'pk_alice', { message: 'beat', targetAgentIds: ['agent_echo'] });
    const reader = await openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice' });
    try {
      await reader.waitFor(() => reader.comments.filter((c) => c === 'ping').length >= 3, 5000);
      assert.equal(reader.comments[0], 'connected');
    } finally {
      reader.close();
    }
  });

  it('refuses a malformed cursor in the query or the header', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', { message: 'x', targetAgentIds: ['agent_echo'] });
    const query = await server.api(`/conversations/${sent.conversationId}/stream?lastEventId=42`, {
      token: 'pk_alice',
    });
    assert.equal(query.status, 400);
    assert.deepEqual(query.body, { detail: 'invalid lastEventId' });
    const header = await server.api(`/conversations/${sent.conversationId}/stream`, {
      token: 'pk_alice',
      headers: { 'last-event-id': 'e12' },
    });
    assert.equal(header.status, 400);
    assert.deepEqual(header.body, { detail: 'invalid lastEventId' });
  });

  it('ends the stream on the server when the client leaves', async () => {
    const sent = await send(server, 'pk_alice', { message: 'bye', targetAgentIds: ['agent_echo'] });
    const readers = await Promise.all(
      [1, 2, 3].map(() => openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice' })),
    );
    assert.equal(server.ctx.records.readers(sent.conversationId), 3);
    for (const reader of readers) reader.close();
    await server.readersGone(sent.conversationId);
    assert.equal(server.ctx.records.readers(sent.conversationId), 0);
  });

  it('a reader that does not go fails readersGone, naming the readers still open', async () => {
    // A conversation of its own: the previous test's echo reply may still be running in alice's last one.
    const sent = await send(server, 'pk_alice', {
      message: 'stay',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const reader = await openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice' });
    try {
      await assert.rejects(
        server.readersGone(sent.conversationId, 0, 200),
        /^Error: readersGone: c_\S+ still has 1 open reader after 200 ms, wanted at most 0 \(per instance: [\d, ]+\)$/,
      );
    } finally {
      reader.close();
    }
    await server.readersGone(sent.conversationId);
  });
});

describe('a cursor past the end', () => {
  it('is refused with 400 rather than opening a stream that would never hear a record', async () => {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: 'the end',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const newest = records.at(-1)!.id;
    const past = cursorOf(parseCursor(newest)! + 1000);
    // Opened as a reader would: a stream that opened instead would be a reader that never hears a record.
    const refused =
      /^Error: stream answered 400: \{"detail":"lastEventId is past the newest record of this conversation"\}$/;
    await assert.rejects(openSse(streamUrl(server, sent.conversationId, past), { token: 'pk_alice' }), refused);
    await assert.rejects(
      openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice', lastEventIdHeader: past }),
      refused,
    );
    // A newer record of another conversation is past the end of this one too.
    const other = await sendAndRead(server, 'pk_alice', {
      message: 'x',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    await assert.rejects(
      openSse(streamUrl(server, sent.conversationId, other.records.at(-1)!.id), { token: 'pk_alice' }),
      refused,
    );
    // The newest record itself is a cursor like any other: the next turn arrives.
    const reader = await openSse(streamUrl(server, sent.conversationId, newest), { token: 'pk_alice' });
    try {
      await send(server, 'pk_alice', { message: 'next', conversationId: sent.conversationId });
      const next = await reader.untilResult();
      assert.equal(next[0]!.raw.type, 'user');
    } finally {
      reader.close();
    }
  });
});

describe('streams per user', () => {
  it(`holds ${DEFAULT_QUOTAS.streamsPerUser} open streams per user; the next is 429 until one closes`, async () => {
    const { token } = await sessionToken(server);
    const sent = await send(server, token, { message: 'many', targetAgentIds: ['agent_echo'] });
    const url = streamUrl(server, sent.conversationId);
    const readers = await Promise.all(
      Array.from({ length: DEFAULT_QUOTAS.streamsPerUser }, () => openSse(url, { token })),
    );
    try {
      const refused = await server.api(`/conversations/${sent.conversationId}/stream`, { token });
      assert.deepEqual(
        [refused.status, refused.body],
        [429, { detail: `too many open streams (limit ${DEFAULT_QUOTAS.streamsPerUser} per user)` }],
      );
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      // Another user is not held back.
      const other = await sessionToken(server);
      const own = await send(server, other.token, { message: 'mine', targetAgentIds: ['agent_echo'] });
      (await openSse(streamUrl(server, own.conversationId), { token: other.token })).close();
      // Once one closes (and the service has seen it go), another opens.
      readers.pop()!.close();
      await server.readersGone(sent.conversationId, DEFAULT_QUOTAS.streamsPerUser - 1);
      readers.push(await openSse(url, { token }));
    } finally {
      for (const reader of readers) reader.close();
    }
  });
});

describe('a stream opened with a session token', () => {
  /** A visitor's long-lived token, and a way to mint a second one of theirs that lives `ttl` seconds. */
  async function visitor() {
    const { token, userId } = await sessionToken(server);
    const { sp_user_ref } = (await server.ctx.db.get('SELECT sp_user_ref FROM members WHERE user_id = ?', userId)) as {
      sp_user_ref: string;
    };
    const shortLived = async (ttl: number) => {
      const res = await server.api('/workspaces/acme/sessions', {
        method: 'POST',
        token: 'sk_acme_1',
        json: { sp_user_ref, ttl_seconds: ttl },
      });
      return res.body as { token: string; expires_at: string };
    };
    return { token, shortLived };
  }

  it('ends when the token expires, with an `expired` event last, and delivers until then', async () => {
    const { token, shortLived } = await visitor();
    const short = await shortLived(3);
    const sent = await send(server, token, { message: 'before', targetAgentIds: ['agent_echo'] });
    const reader = await openSse(streamUrl(server, sent.conversationId, sent.userEventId), { token: short.token });
    await reader.untilResult();
    await reader.ended;
    assert.deepEqual(reader.others, [{ event: 'expired', data: '{"detail":"the session token expired"}' }]);
    assert.ok(Date.now() >= Date.parse(short.expires_at) - 50, 'not before the token expired');
    // What was sent later is there for a client that renews its token and resumes from its cursor.
    const later = await send(server, token, { message: 'after', conversationId: sent.conversationId });
    const resumed = await readTurn(server, token, sent.conversationId, reader.records.at(-1)!.id);
    assert.equal(resumed[0]!.id, later.userEventId);
  });

  it('delivers a reply running when the token expires to its end, then ends', async () => {
    const { token, shortLived } = await visitor();
    const first = await sendAndRead(server, token, { message: '/help', targetAgentIds: ['agent_demo'] });
    const short = await shortLived(2);
    const reader = await openSse(streamUrl(server, first.sent.conversationId), { token: short.token });
    await send(server, token, { message: '/slow 4', conversationId: first.sent.conversationId });
    await reader.ended;
    assert.equal(reader.records.at(-1)!.raw.type, 'result', 'the reply was heard to its end');
    assert.ok(Date.parse(reader.records.at(-1)!.timestamp) > Date.parse(short.expires_at), 'past the expiry');
    assert.deepEqual(reader.others, [{ event: 'expired', data: '{"detail":"the session token expired"}' }]);
  });
});

describe('resume', () => {
  it('replays exactly the later records from every cursor of a finished turn', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', {
      message: '/tool',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const { records: second } = await sendAndRead(server, 'pk_alice', {
      message: 'and once more',
      conversationId: sent.conversationId,
    });
    const all = await allRecords(sent.conversationId, second.at(-1)!.seq);
    assert.equal(all[0]!.id, sent.userEventId);
    assert.deepEqual(
      all.map((r) => r.seq),
      all.map((_, i) => i + 1),
    );
    for (const [i, cursor] of all.entries()) {
      const expected = all.slice(i + 1);
      const reader = await openSse(streamUrl(server, sent.conversationId, cursor.id), { token: 'pk_alice' });
      try {
        if (expected.length) await reader.waitFor((records) => records.length >= expected.length);
        // The replay is written at once, before the first heartbeat: anything extra (a duplicate, a record from
        // elsewhere) would come before it.
        await reader.waitFor(() => reader.comments.includes('ping'));
        assert.deepEqual(reader.records, expected, `resuming after ${cursor.id}`);
        assert.deepEqual(
          reader.ids,
          expected.map((r) => r.id),
        );
      } finally {
        reader.close();
      }
    }
  });

  it('uses the Last-Event-ID header, and the query parameter over it', async () => {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: 'header or query',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const url = streamUrl(server, sent.conversationId);
    const byHeader = await openSse(url, { token: 'pk_alice', lastEventIdHeader: records[3]!.id });
    const both = await openSse(streamUrl(server, sent.conversationId, records[5]!.id), {
      token: 'pk_alice',
      lastEventIdHeader: records[1]!.id,
    });
    try {
      assert.deepEqual(await byHeader.untilResult(), records.slice(4));
      assert.deepEqual(await both.untilResult(), records.slice(6));
    } finally {
      byHeader.close();
      both.close();
    }
  });

  it('replays the last N turns first with turns=N and no cursor', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', {
      message: 'first',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const second = await sendAndRead(server, 'pk_alice', { message: 'second', conversationId: sent.conversationId });
    const third = await sendAndRead(server, 'pk_alice', { message: 'third', conversationId: sent.conversationId });
    const reader = await openSse(`${streamUrl(server, sent.conversationId)}?turns=2`, { token: 'pk_alice' });
    try {
      await reader.waitFor((records) => records.filter((r) => r.raw.type === 'result').length === 2);
      assert.deepEqual(reader.records, [
        second.sent.userMessage,
        ...second.records,
        third.sent.userMessage,
        ...third.records,
      ]);
    } finally {
      reader.close();
    }
  });

  it('continues live without a gap or a duplicate when a reader reconnects mid-reply', async () => {
    const sent = await send(server, 'pk_alice', {
      message: '/slow 1',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const whole = await openSse(streamUrl(server, sent.conversationId, sent.userEventId), { token: 'pk_alice' });
    const first = await openSse(streamUrl(server, sent.conversationId, sent.userEventId), { token: 'pk_alice' });
    try {
      await first.waitFor((records) => records.filter((r) => r.raw.type === 'assistant_delta').length >= 3);
      first.close();
      const seen = [...first.records];
      const resumed = await openSse(streamUrl(server, sent.conversationId, seen.at(-1)!.id), { token: 'pk_alice' });
      try {
        const rest = await resumed.untilResult();
        const expected = await whole.untilResult();
        assert.deepEqual([...seen, ...rest], expected);
        assert.equal(resultOf(expected).subtype, 'success');
      } finally {
        resumed.close();
      }
    } finally {
      whole.close();
    }
  });
});

describe('live readers', () => {
  it('starts at the live tail without a cursor', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', {
      message: 'old news',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const reader = await openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice' });
    try {
      const next = await send(server, 'pk_alice', { message: 'fresh', conversationId: sent.conversationId });
      await reader.untilResult();
      assert.equal(reader.records[0]!.id, next.userEventId);
      assert.equal(deltaText(reader.records), 'Echo: fresh');
    } finally {
      reader.close();
    }
  });

  it('gives 20 concurrent readers the same records', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', {
      message: '/help',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const readers = await Promise.all(
      Array.from({ length: 20 }, () => openSse(streamUrl(server, sent.conversationId), { token: 'pk_alice' })),
    );
    try {
      const next = await send(server, 'pk_alice', { message: '/markdown', conversationId: sent.conversationId });
      assert.equal(next.conversationId, sent.conversationId);
      const turns = await Promise.all(readers.map((reader) => reader.untilResult(20000)));
      assert.ok(turns[0]!.length > 50);
      assert.deepEqual(kinds(turns[0]!).slice(0, 1), ['user']);
      for (const turn of turns) assert.deepEqual(turn, turns[0]);
    } finally {
      for (const reader of readers) reader.close();
    }
  });

  it('lets a reader that resumes from userEventId read the reply of that message', async () => {
    const sent = await send(server, 'pk_alice', {
      message: 'reply to me',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const records = await readTurn(server, 'pk_alice', sent.conversationId, sent.userEventId!);
    assert.equal(records[0]!.seq, sent.userMessage!.seq + 1);
    assert.equal(deltaText(records), 'Echo: reply to me');
  });
});

describe('slow readers', () => {
  /** A cursor for each stream a visitor may hold: all of them replay the conversation from its start. */
  const everyStream = () => Array<string>(DEFAULT_QUOTAS.streamsPerUser).fill(FROM_START);

  it(`${DEFAULT_QUOTAS.streamsPerUser} streams that read nothing on a full conversation: the service buffers a record each, and answers others meanwhile`, () =>
    // A service of its own, with heartbeats far apart: these readers are not closed while the test looks at them.
    withSlowReaderServer(async (slow, token) => {
      // The largest conversation a visitor can hold (16 MB), in records as large as a visitor's messages.
      const { conversationId, filled } = await filledConversation(slow, token, 64 * 1024, LIMITS.conversationBytes);
      const other = await send(slow, token, { message: 'hi', targetAgentIds: ['agent_echo'], newConversation: true });
      await readTurn(slow, token, other.conversationId, other.userEventId!);
      const largestFrame = Math.max(...filled.map(frameBytes));
      await withStalledReaders(slow, conversationId, token, everyStream(), async ({ readers, watch, rssGrowthMb }) => {
        // A stream may hold its socket's high-water mark and the frame written when it was reached.
        const bound = watch.highWaterMark() + largestFrame;
        await watch.until(() => readers.every((r) => watch.full(r.port)), bound);
        const most = Math.max(...readers.map((r) => watch.most(r.port)));
        assert.ok(most <= bound, `a stream buffered ${most} bytes, more than ${bound}`);
        const started = performance.now();
        const history = await slow.api(`/conversations/${other.conversationId}/history`, { token });
        assert.equal(history.status, 200);
        const answeredMs = performance.now() - started;
        const rss = rssGrowthMb();
        console.log(
          `# ${readers.length} stalled streams of a ${LIMITS.conversationBytes / 2 ** 20} MB conversation: ` +
            `at most ${most} bytes buffered each (bound ${bound}); RSS ${rss >= 0 ? '+' : ''}${rss.toFixed(1)} MB; ` +
            `another request answered in ${answeredMs.toFixed(0)} ms`,
        );
        // The goal (RSS grew by 650 MB before); another visitor's request is not held up.
        assert.ok(rss <= 64, `RSS grew by ${rss.toFixed(1)} MB`);
        assert.ok(answeredMs < 2000, `another request took ${answeredMs.toFixed(0)} ms`);
        // A reader that reads again gets every record, in order: it was held at its cursor, not dropped.
        const ids = await readers[0]!.readUntil(filled.at(-1)!.id);
        assert.deepEqual(
          ids.slice(-filled.length),
          filled.map((r) => r.id),
        );
        assert.ok(Math.max(...readers.map((r) => watch.most(r.port))) <= bound);
      });
    }));

  it(`${DEFAULT_QUOTAS.streamsPerUser} streams that read nothing on a conversation of whole-turn records (4 MB each): each holds a slice of a record, not the record, and the service one read of it`, () =>
    withSlowReaderServer(async (slow, token) => {
      // As large as a model's reply may store in one record (a turn's records take 4 MB at most), and as many
      // as the conversation holds.
      const recordBytes = LIMITS.turnBytes - 1024;
      const count = LIMITS.conversationBytes / LIMITS.turnBytes;
      const { conversationId, filled } = await filledConversation(slow, token, recordBytes, count * recordBytes);
      await withStalledReaders(slow, conversationId, token, everyStream(), async ({ readers, watch, rssGrowthMb }) => {
        // A record larger than a slice (64 KB) is written a slice at a time: a stream holds its socket's
        // high-water mark and one slice, not a 4 MB record (32 of them held 128 MB and more).
        const bound = watch.highWaterMark() + 64 * 1024;
        await watch.until(() => readers.every((r) => watch.full(r.port)), bound);
        const most = Math.max(...readers.map((r) => watch.most(r.port)));
        const rss = rssGrowthMb();
        console.log(
          `# ${readers.length} stalled streams of ${filled.length} records of ${(recordBytes / 2 ** 20).toFixed(2)} MB: ` +
            `at most ${most} bytes buffered each (bound ${bound}); RSS ${rss >= 0 ? '+' : ''}${rss.toFixed(1)} MB`,
        );
        assert.ok(most <= bound, `a stream buffered ${most} bytes, more than ${bound}`);
        // Streams that reach a record at different moments share one read of it (each read of a 4 MB record
        // left 8 to 16 MB behind: RSS +193 MB at worst before).
        assert.ok(rss <= 64, `RSS grew by ${rss.toFixed(1)} MB`);
        // A reader that reads again gets every record whole, in order.
        const ids = await readers[0]!.readUntil(filled.at(-1)!.id);
        assert.deepEqual(
          ids.slice(-filled.length),
          filled.map((r) => r.id),
        );
      });
    }));

  it('closes a stream whose socket takes nothing from one heartbeat to the next (its reader resumes from its cursor)', async () => {
    const { token } = await sessionToken(server);
    const sent = await send(server, token, { message: 'fill', targetAgentIds: ['agent_echo'], newConversation: true });
    await readTurn(server, token, sent.conversationId, sent.userEventId!);
    const watch = watchBuffers(server);
    const reader = await openStalled(server, sent.conversationId, token);
    const filled: ChatStreamRecord[] = [];
    try {
      // The stream is open once the service has written its first bytes.
      await watch.until(() => watch.most(reader.port) > 0, Number.POSITIVE_INFINITY);
      // Records arrive until the connection holds all it can and the service's side of it fills: then nothing
      // more is added, and the stream, full from one heartbeat to the next, is closed.
      while (!watch.full(reader.port)) {
        filled.push(...(await fillConversation(server, sent.conversationId, 64 * 1024, 256 * 1024)));
        // SQLite answers at once: without a turn of the event loop the service would never write.
        await setImmediate();
      }
      await server.readersGone(sent.conversationId);
      // The reader reads again: what reached it is whole records, then the end; it resumes from the last one.
      const received = await reader.readToEnd();
      const last = received.at(-1)!;
      assert.ok(filled.findIndex((r) => r.id === last) < filled.length - 1, 'the stream was closed behind');
      const resumed = await openSse(streamUrl(server, sent.conversationId, last), { token });
      try {
        await resumed.waitFor((records) => records.at(-1)?.id === filled.at(-1)!.id);
        const all = [...received, ...resumed.ids];
        assert.deepEqual(
          all.slice(-filled.length),
          filled.map((r) => r.id),
        );
        assert.equal(new Set(all).size, all.length, 'no record twice');
      } finally {
        resumed.close();
      }
    } finally {
      reader.close();
      watch.stop();
    }
  });
});
