import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AssistantRawEvent, ChatStreamRecord } from '../../src/protocol/types.js';
import { sendAndRead } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let conversationId: string;
/** Every entry of the conversation, as `messages` returns it. */
let entries: ChatStreamRecord[];
/** Every record, deltas and statuses included. */
let streamed: ChatStreamRecord[];

const TURNS = ['/help', '/tool', '/think', 'hello', '/error', '/form'];

before(async () => {
  server = await startTestServer();
  streamed = [];
  for (const message of TURNS) {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message,
      targetAgentIds: ['agent_demo'],
      ...(conversationId ? { conversationId } : { newConversation: true }),
    });
    conversationId = sent.conversationId;
    streamed.push(sent.userMessage!, ...records);
  }
  const res = await server.api(`/conversations/${conversationId}/messages`, { token: 'pk_alice' });
  assert.equal(res.status, 200);
  entries = res.body.entries;
});
after(() => server.close());

const history = (query: string) =>
  server.api(`/conversations/${conversationId}/history?${query}`, { token: 'pk_alice' });

/** What a page must hold: walking back from the cursor, whole turns, at most `maxEntries` records. */
function expectedPage(beforeIndex: number, turns: number, maxEntries: number) {
  const taken: ChatStreamRecord[] = [];
  let seen = 0;
  for (let i = beforeIndex - 1; i >= 0 && taken.length < maxEntries; i--) {
    taken.unshift(entries[i]!);
    if (entries[i]!.sender === 'user' && ++seen === turns) break;
  }
  return { entries: taken, hasMore: beforeIndex - taken.length > 0, handoff: AGENTS };
}

const hasThinking = (records: ChatStreamRecord[]) =>
  records.some(
    (r) =>
      r.raw.type === 'assistant' && (r.raw as AssistantRawEvent).message.content.some((b) => b.type === 'thinking'),
  );

describe('messages', () => {
  it('holds every record but deltas and statuses, oldest first, thinking removed', () => {
    const expected = streamed.filter((r) => r.event !== 'delta' && r.event !== 'agent_status');
    assert.deepEqual(
      entries.map((r) => r.id),
      expected.map((r) => r.id),
    );
    assert.equal(entries.filter((r) => r.sender === 'user').length, TURNS.length);
    assert.equal(entries.filter((r) => r.raw.type === 'result').length, TURNS.length);
    assert.ok(hasThinking(streamed));
    assert.ok(!hasThinking(entries));
    const think = entries.find(
      (r) =>
        r.raw.type === 'assistant' &&
        (r.raw as AssistantRawEvent).message.content.some((b) => b.type === 'text' && b.text.includes('42')),
    );
    assert.ok(think, 'the text of the /think reply stays');
  });

  it('keeps thinking blocks with includeThinking=true', async () => {
    const res = await server.api(`/conversations/${conversationId}/messages?includeThinking=true`, {
      token: 'pk_alice',
    });
    assert.ok(hasThinking(res.body.entries));
    const page = await history('includeThinking=true');
    assert.ok(hasThinking(page.body.entries));
    assert.ok(!hasThinking((await history('')).body.entries));
  });
});

/** Who holds a conversation never handed to a person: its agents, said by no record. */
const AGENTS = { state: 'agent', at: null };

describe('history', () => {
  it('returns the latest 10 turns (here all of them) by default', async () => {
    const res = await history('');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { entries, hasMore: false, handoff: AGENTS });
  });

  it('pages correctly before every cursor, for every turns and maxEntries bound', async () => {
    const cursors = [
      ...entries.map((r, i) => ({ index: i, query: `before=${r.id}` })),
      { index: entries.length, query: '' },
    ];
    for (const { index, query } of cursors) {
      for (const turns of [1, 2, 3, 100]) {
        for (const maxEntries of [1, 2, 3, 5, 500]) {
          const res = await history(`${query}&turns=${turns}&maxEntries=${maxEntries}`);
          assert.equal(res.status, 200);
          assert.deepEqual(
            res.body,
            expectedPage(index, turns, maxEntries),
            `before #${index}, turns=${turns}, maxEntries=${maxEntries}`,
          );
        }
      }
    }
  });

  it('walks back to the start with the first entry of each page as the next cursor', async () => {
    const pages: ChatStreamRecord[][] = [];
    let cursor = '';
    for (;;) {
      const res = await history(`turns=2${cursor && `&before=${cursor}`}`);
      pages.unshift(res.body.entries);
      assert.equal(res.body.entries[0].sender, 'user', 'a page starts at a turn');
      if (!res.body.hasMore) break;
      cursor = res.body.entries[0].id;
    }
    assert.equal(pages.length, TURNS.length / 2);
    assert.deepEqual(pages.flat(), entries);
  });

  it('is empty before the first record', async () => {
    const res = await history(`before=${entries[0]!.id}`);
    assert.deepEqual(res.body, { entries: [], hasMore: false, handoff: AGENTS });
  });

  it('refuses bounds and cursors it cannot honour', async () => {
    const cases: [string, string][] = [
      ['turns=0', 'querystring/turns Number must be greater than or equal to 1'],
      ['turns=101', 'querystring/turns Number must be less than or equal to 100'],
      ['turns=1.5', 'querystring/turns Expected integer, received float'],
      ['maxEntries=0', 'querystring/maxEntries Number must be greater than or equal to 1'],
      ['maxEntries=501', 'querystring/maxEntries Number must be less than or equal to 500'],
      ['before=yesterday', 'invalid before'],
      [
        'includeThinking=yes',
        "querystring/includeThinking Invalid enum value. Expected 'true' | 'false', received 'yes'",
      ],
    ];
    for (const [query, detail] of cases) {
      const res = await history(query);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { detail }, query);
    }
  });
});
