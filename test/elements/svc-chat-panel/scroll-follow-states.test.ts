import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import { LitElement } from 'lit';
import type { ChatStore } from '../../../src/chat/chat-store.js';
import {
  FOLLOW_TRANSITIONS,
  type FollowEvent,
  type FollowState,
  ScrollFollowController,
  type ScrollHost,
} from '../../../src/elements/svc-chat-panel/scroll-follow.js';
import { belowView } from '../../helpers/chat-parts.js';

/*
 * Every transition of the scroll-follow state machine (FOLLOW_TRANSITIONS), each from its state by its event,
 * with what the reader sees of it: the controller in a list of rows of known heights, as the panel lays out
 * its conversation (`part="messages"`, rows `message-user` and `message-agent`, a card as `part="card"`).
 * The last test checks that every transition of the table was taken here.
 */

/** The view of the list, in pixels. */
const VIEW = 300;

interface Row {
  key: string;
  user?: boolean;
  height: number;
  /** The height of a card the row holds. */
  card?: number;
}

/** The panel's part in this: a list of rows, a store that says whether a reply runs. */
class FollowedList extends LitElement implements ScrollHost {
  static override properties = { rows: { attribute: false } };
  rows: Row[] = [];
  readonly fakeStore = {
    running: false,
    loadingHistory: false,
    hasMoreHistory: false,
    messages: () => this.rows.map(({ key }) => ({ key })),
    loadOlder: async () => {},
  };
  readonly follow = new ScrollFollowController(this);

  get store(): ChatStore {
    return { ...this.fakeStore, messages: this.fakeStore.messages() } as unknown as ChatStore;
  }

  protected override render() {
    return html`<div part="messages" style=${`height: ${VIEW}px; overflow: auto`} @scroll=${this.follow.onScroll}>
      ${this.rows.map(
        (row) => html`<div part=${`message ${row.user ? 'message-user' : 'message-agent'}`}
          style=${`height: ${row.height}px`}>${row.card ? html`<div part="card" style=${`height: ${row.card}px`}></div>` : ''}</div>`,
      )}
    </div>`;
  }
}
customElements.define('followed-list', FollowedList);

let list: FollowedList;
const messages = () => list.renderRoot.querySelector<HTMLElement>('[part~=messages]')!;
const taken = new Set<string>();

/**
 * Shows `rows` (a reply running or not), and waits for the frames in which the chat placed the list: the
 * update's, the one in which the rows report their size, and the one in which the chat follows it.
 */
async function show(rows: Row[], running = list.fakeStore.running): Promise<void> {
  list.fakeStore.running = running;
  list.rows = [...rows];
  await list.updateComplete;
  for (let frame = 0; frame < 3; frame++) await nextFrame();
}

/** The reader scrolls the list to `top` (a real scroll, its event heard). */
async function scrollTo(top: number): Promise<void> {
  const scrolled = oneEvent(messages(), 'scroll');
  messages().scrollTop = top;
  await scrolled;
  await list.updateComplete;
}

/** `from`, then `act` (what `event` stands for): the state is `to`, and the move is counted as taken. */
async function move(from: FollowState, event: FollowEvent, act: () => unknown, to: FollowState): Promise<void> {
  expect(list.follow.state, `the state before ${event}`).to.equal(from);
  expect(FOLLOW_TRANSITIONS[from][event], `${from} lists ${event}`).to.equal(to);
  await act();
  expect(list.follow.state, `${from} after ${event}`).to.equal(to);
  taken.add(`${from} ${event}`);
}

const conversation = (turns: number): Row[] =>
  Array.from({ length: turns }, (_, i) => [
    { key: `q${i}`, user: true, height: 40 },
    { key: `a${i}`, height: 80 },
  ]).flat();

/** A question asked at the end of a conversation of `turns`, its reply starting: followed until its question reaches the top. */
async function replyStarted(turns = 3): Promise<Row[]> {
  const rows = conversation(turns);
  await show(rows);
  const asked = [...rows, { key: 'q', user: true, height: 40 }, { key: 'a', height: 40 }];
  await move('following', 'reply', () => show(asked, true), 'following-reply');
  return asked;
}

/** A reply that grows past the view: the chat stops at its question. */
async function heldAtQuestion(): Promise<Row[]> {
  const rows = await replyStarted();
  const grown = [...rows.slice(0, -1), { key: 'a', height: VIEW * 3 }];
  await move('following-reply', 'question-at-top', () => show(grown), 'held');
  return grown;
}

const top = (selector: string) =>
  messages().querySelector(selector)!.getBoundingClientRect().top - messages().getBoundingClientRect().top;

describe('scroll follow, state by state', () => {
  beforeEach(async () => {
    list = await fixture<FollowedList>(html`<followed-list></followed-list>`);
  });

  it('following → following-reply (reply): a question asked at the end starts following its reply', async () => {
    await replyStarted();
    expect(belowView(messages())).to.be.below(2);
  });

  it('following-reply → held (question-at-top): the reply grows past the view, its question stays at the top', async () => {
    await heldAtQuestion();
    const question = top('[part~=message-user]:nth-last-child(2)');
    expect(question).to.be.within(0, 10);
    expect(belowView(messages()), 'the rest of the reply below').to.be.above(VIEW);
    // Held, a reply running is new content the reader does not see: the chat offers the way to it.
    await show(list.rows);
    expect(list.follow.awayFromEnd).to.equal(true);
  });

  it('following → at-card (tall-card): a card taller than the view shows from its top', async () => {
    await show(conversation(3));
    const card = { key: 'card', height: VIEW + 120, card: VIEW + 100 };
    await move('following', 'tall-card', () => show([...conversation(3), card]), 'at-card');
    expect(top('[part~=card]')).to.be.within(0, 10);
  });

  it('following-reply → at-card (tall-card): a reply that is a tall card shows from its top', async () => {
    const rows = await replyStarted();
    const card = { key: 'a', height: VIEW + 120, card: VIEW + 100 };
    await move('following-reply', 'tall-card', () => show([...rows.slice(0, -1), card]), 'at-card');
    expect(top('[part~=card]')).to.be.within(0, 10);
  });

  async function atCard(): Promise<Row[]> {
    const rows = [...conversation(3), { key: 'card', height: VIEW + 220, card: VIEW + 200 }];
    await show(conversation(3));
    await move('following', 'tall-card', () => show(rows), 'at-card');
    return rows;
  }

  it('at-card → following (end-shown): a message after the card is followed to the end', async () => {
    const rows = await atCard();
    await move('at-card', 'end-shown', () => show([...rows, { key: 'next', user: true, height: 40 }]), 'following');
    expect(belowView(messages())).to.be.below(2);
  });

  it('at-card → reading (read-on): the reader reads on below the card top, and the chat leaves them there', async () => {
    await atCard();
    const at = messages().scrollTop + 30;
    await move('at-card', 'read-on', () => scrollTo(at), 'reading');
    await show([...list.rows.slice(0, -1), { ...list.rows.at(-1)!, height: VIEW + 260 }]);
    expect(messages().scrollTop, 'not brought back to the card top').to.be.within(at - 1, at + 1);
  });

  it('at-card → reading (scrolled-up): the reader goes up from the card', async () => {
    await atCard();
    await move('at-card', 'scrolled-up', () => scrollTo(messages().scrollTop - 60), 'reading');
  });

  it('at-card → reading → following (read-on, scrolled-to-end): the reader reads the card to its end, and stays there', async () => {
    await atCard();
    // Down to the end in one move: the reader reads on below the top, and is at the end.
    await scrollTo(messages().scrollHeight);
    expect(list.follow.state).to.equal('following');
    // A row above grows: the list stays at the end, not back at the card's top.
    const rows = list.rows;
    await show([{ ...rows[0]!, height: rows[0]!.height + 120 }, ...rows.slice(1)]);
    expect(belowView(messages())).to.be.below(2);
  });

  it("at-card: the reader's move down stays theirs when the chat updates before its scroll event", async () => {
    await atCard();
    messages().scrollTop = messages().scrollHeight;
    // The panel updates (the store changed) before the browser tells of the scroll.
    list.requestUpdate();
    await list.updateComplete;
    expect(belowView(messages()), 'not taken back to the card top').to.be.below(2);
    expect(list.follow.state).to.equal('following');
  });

  it('following → reading (scrolled-up): the reader goes up, and new content leaves them there', async () => {
    await show(conversation(6));
    const at = messages().scrollTop - 150;
    await move('following', 'scrolled-up', () => scrollTo(at), 'reading');
    await show([...list.rows, { key: 'q', user: true, height: 40 }, { key: 'a', height: 200 }], true);
    expect(messages().scrollTop).to.be.within(at - 1, at + 1);
    expect(list.follow.awayFromEnd, 'the jump to the end offered').to.equal(true);
  });

  it('following-reply → reading (scrolled-up)', async () => {
    await replyStarted(6);
    await move('following-reply', 'scrolled-up', () => scrollTo(messages().scrollTop - 150), 'reading');
  });

  it('held → reading (scrolled-up): the reader goes up from the question, and the chat does not bring them back', async () => {
    await heldAtQuestion();
    const at = messages().scrollTop - 100;
    await move('held', 'scrolled-up', () => scrollTo(at), 'reading');
    await show([...list.rows.slice(0, -1), { key: 'a', height: VIEW * 4 }]);
    expect(messages().scrollTop).to.be.within(at - 1, at + 1);
  });

  it('held → following (scrolled-to-end): the reader goes to the end, past the question, and the end is followed', async () => {
    await heldAtQuestion();
    await move('held', 'scrolled-to-end', () => scrollTo(messages().scrollHeight), 'following');
    await show([...list.rows.slice(0, -1), { key: 'a', height: VIEW * 4 }]);
    expect(belowView(messages())).to.be.below(2);
  });

  it('held stays held while the reader reads down the reply, short of its end', async () => {
    await heldAtQuestion();
    const held = messages().scrollTop;
    await scrollTo(held + 40);
    expect(list.follow.state).to.equal('held');
    // A positive control: the same list moved up by the reader leaves the hold.
    await scrollTo(held - 50);
    expect(list.follow.state).to.equal('reading');
  });

  it('reading → following (scrolled-to-end): back at the end, the end is followed again', async () => {
    await show(conversation(6));
    await move('following', 'scrolled-up', () => scrollTo(messages().scrollTop - 150), 'reading');
    await move('reading', 'scrolled-to-end', () => scrollTo(messages().scrollHeight), 'following');
    await show([...list.rows, { key: 'more', height: 200 }]);
    expect(belowView(messages())).to.be.below(2);
  });

  for (const from of ['reading', 'held', 'following-reply'] as const) {
    it(`${from} → following (follow): the visitor sends or jumps, and the end is followed`, async () => {
      if (from === 'reading') {
        await show(conversation(6));
        await move('following', 'scrolled-up', () => scrollTo(messages().scrollTop - 150), 'reading');
      } else if (from === 'held') await heldAtQuestion();
      else await replyStarted();
      await move(from, 'follow', () => list.follow.jumpToEnd(), 'following');
      expect(belowView(messages())).to.be.below(2);
      expect(list.follow.awayFromEnd).to.equal(false);
    });
  }

  it('an event a state does not list leaves it as it is: at-card stays when the visitor is sent to the end', async () => {
    await atCard();
    expect(FOLLOW_TRANSITIONS['at-card'].follow).to.equal(undefined);
    list.follow.follow();
    await show(list.rows);
    expect(list.follow.state).to.equal('at-card');
    expect(top('[part~=card]')).to.be.within(0, 10);
  });

  it('took every transition of the table', () => {
    const table = Object.entries(FOLLOW_TRANSITIONS).flatMap(([from, moves]) =>
      Object.keys(moves).map((event) => `${from} ${event}`),
    );
    expect(table.filter((transition) => !taken.has(transition))).to.deep.equal([]);
  });
});
