import type {
  ContentBlock,
  MessagePart,
  PaymentResolution,
  PaymentStatus,
  UserRawEvent,
} from '@svc/agent-sdk/protocol';
import { RESERVED_TOOL_NAMES, readCardAnswer, readClientToolAnswer } from '@svc/agent-sdk/protocol';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { StoredFile, TurnInput } from '../types.js';
import { PAYMENT_TOOL } from './cards.js';
import { PAGE_WAITING, pageAnswerText } from './client-tools.js';
import { HANDOFF_ASKED, handoffNote } from './handoff.js';
import { type AttachmentBudget, attachmentBudget, attachmentParts } from './parts.js';

/** A tool call as the history shows it; its result is filled in as later records answer it. */
interface Call {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result?: string;
  /** A call of a tool the page gave the chat: its result is the page's answer. */
  client?: boolean;
  /** A payment card's order and latest status. */
  payment?: { orderId: string; status: PaymentStatus };
  /** The replies of the agent a `delegate` call handed over to, in the same turn. */
  delegation?: { agentId: string; turnId?: string; replies: string[] };
}

type Entry = { role: 'user'; text: string; parts: MessagePart[] } | { role: 'assistant'; text: string; calls: Call[] };

/** The result of a `suggest_replies` call, in its turn and in the history after it. */
export const SUGGESTED = 'The visitor was offered these replies.';

const CARDS: ReadonlySet<string> = new Set([RESERVED_TOOL_NAMES.infoCollect, RESERVED_TOOL_NAMES.connectorSetup]);

/**
 * The conversation as chat-completion messages, from this agent's point of view: the visitor's messages
 * (with their attachments), the agent's own replies and tool calls, each followed by its result (a card's
 * answer, a page's answer, a payment's status, what a delegate replied, an MCP tool's output), other agents'
 * replies as quoted user messages, and a handoff's changes and a person's messages as notes (handoff.ts). The
 * turn's own message comes last; a card's or a page's answer becomes the call's result.
 */
export function modelMessages(
  input: TurnInput,
  readUpload: (url: string) => StoredFile | undefined,
): ChatCompletionMessageParam[] {
  const me = input.agent.id;
  const names = new Map(input.workspaceAgents.map((a) => [a.id, a.name]));
  const entries: Entry[] = [];
  const calls = new Map<string, Call>();
  const openCards: Call[] = [];
  const payments = new Map<string, Call>();
  const delegations: Call[] = [];

  const onUser = (raw: UserRawEvent, text: string) => {
    const answer = cardAnswer(raw);
    if (answer) {
      const named = answer.toolUseId ? calls.get(answer.toolUseId) : undefined;
      const card = named ?? openCards.findLast((c) => c.name === answer.card);
      if (card && card.result === undefined) {
        card.result = answer.text;
        const open = openCards.indexOf(card);
        if (open >= 0) openCards.splice(open, 1);
        return;
      }
    }
    const said = answer ? [text, `(${answer.text})`].filter(Boolean).join('\n') : text;
    entries.push({ role: 'user', text: said, parts: raw.parts ?? [] });
  };

  for (const record of input.history) {
    const raw = record.raw;
    if (raw.type === 'user') onUser(raw, textOf(raw.message.content));
    else if (raw.type === 'assistant' && raw.agentId === me) {
      for (const block of raw.message.content) {
        if (block.type === 'tool_result') {
          const call = calls.get(block.tool_use_id);
          if (call) call.result = block.content;
        }
      }
      const own = raw.message.content.flatMap((block): Call[] =>
        block.type === 'tool_use'
          ? [
              {
                id: block.id,
                name: block.name,
                input: block.input,
                ...(block.client && { client: true }),
              },
            ]
          : [],
      );
      for (const call of own) {
        calls.set(call.id, call);
        if (CARDS.has(call.name)) openCards.push(call);
        if (call.name === RESERVED_TOOL_NAMES.delegate && typeof call.input.agentId === 'string') {
          call.delegation = {
            agentId: call.input.agentId,
            turnId: record.turnId,
            replies: [],
          };
          delegations.push(call);
        }
      }
      const text = textOf(raw.message.content);
      if (text || own.length) entries.push({ role: 'assistant', text, calls: own });
    } else if (raw.type === 'assistant') {
      const text = textOf(raw.message.content);
      const handedTo = delegations.find(
        (d) => d.delegation?.agentId === raw.agentId && d.delegation.turnId === record.turnId,
      );
      if (handedTo) handedTo.delegation?.replies.push(text);
      else if (text)
        entries.push({
          role: 'user',
          text: `${names.get(raw.agentId) ?? raw.agentId} (another agent) wrote:\n${text}`,
          parts: [],
        });
    } else if (raw.type === 'payment_gate' && raw.agentId === me) {
      const { orderId, amountCny, title, description } = raw.payment;
      const call: Call = {
        id: `pay_${orderId}`,
        name: PAYMENT_TOOL,
        input: {
          amount_cny: amountCny,
          title,
          ...(description ? { description } : {}),
        },
        payment: { orderId, status: 'pending' },
      };
      payments.set(orderId, call);
      entries.push({ role: 'assistant', text: '', calls: [call] });
    } else if (raw.type === 'payment_gate_resolution') {
      const call = payments.get(raw.orderId);
      if (call?.payment) call.payment.status = raw.status;
    } else {
      const note = handoffNote(record);
      if (note)
        entries.push({
          role: 'user',
          text: note,
          parts: record.raw.type === 'operator_message' ? (record.raw.parts ?? []) : [],
        });
    }
  }
  if (input.payment) followPayment(input.payment, payments.get(input.payment.orderId), entries);
  else {
    const text = input.delegatedBy ? `${input.delegatedBy.name} handed this task to you: ${input.text}` : input.text;
    const { parts, metadata, toolAction } = input;
    onUser(
      {
        type: 'user',
        message: { role: 'user', content: [] },
        parts,
        metadata,
        toolAction,
      },
      text,
    );
  }
  return materialize(entries, readUpload);
}

/**
 * A turn that follows a payment has no user message: when the payment call is the last thing said, its
 * result (the new status) ends the messages and the model goes on from it; when the conversation went on
 * since, a note says what became of the order.
 */
function followPayment({ orderId, status }: PaymentResolution, call: Call | undefined, entries: Entry[]): void {
  const last = entries.at(-1);
  if (call && last?.role === 'assistant' && last.calls.includes(call)) return;
  const what = call ? `"${String(call.input.title)}" (order ${orderId})` : `order ${orderId}`;
  entries.push({
    role: 'user',
    text: `(The payment ${what} is now ${status}.)`,
    parts: [],
  });
}

/** The entries as messages; attachments are spent newest first, so the latest always reach the model. */
function materialize(
  entries: Entry[],
  readUpload: (url: string) => StoredFile | undefined,
): ChatCompletionMessageParam[] {
  const budget: AttachmentBudget = attachmentBudget();
  const messages: ChatCompletionMessageParam[][] = [];
  for (const entry of [...entries].reverse()) {
    if (entry.role === 'user') {
      messages.push([
        {
          role: 'user',
          content: userContent(entry.text, entry.parts, readUpload, budget),
        },
      ]);
      continue;
    }
    const assistant: ChatCompletionMessageParam = {
      role: 'assistant',
      content: entry.text || null,
    };
    if (entry.calls.length) {
      assistant.tool_calls = entry.calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.input) },
      }));
    }
    messages.push([
      assistant,
      ...entry.calls.map(
        (call): ChatCompletionMessageParam => ({
          role: 'tool',
          tool_call_id: call.id,
          content: resultOf(call),
        }),
      ),
    ]);
  }
  return messages.reverse().flat();
}

function userContent(
  text: string,
  parts: MessagePart[],
  readUpload: (url: string) => StoredFile | undefined,
  budget: AttachmentBudget,
): string | ChatCompletionContentPart[] {
  if (!parts.length) return text;
  const attached = attachmentParts(parts, readUpload, budget);
  return text ? [{ type: 'text', text }, ...attached] : attached;
}

function resultOf(call: Call): string {
  if (call.result !== undefined) return call.result;
  if (call.payment) {
    const { orderId, status } = call.payment;
    const now = status === 'pending' ? 'not paid yet' : status;
    return `The payment card for order ${orderId} was shown; its status now: ${now}.`;
  }
  if (call.delegation) {
    const name = String(call.input.agentName ?? call.delegation.agentId);
    const replies = call.delegation.replies.filter(Boolean);
    return replies.length ? `${name} took over and replied:\n${replies.join('\n\n')}` : `${name} took over.`;
  }
  if (CARDS.has(call.name)) return 'The card was shown; the visitor has not answered it.';
  if (call.client) return PAGE_WAITING;
  if (call.name === RESERVED_TOOL_NAMES.suggestReplies) return SUGGESTED;
  if (call.name === RESERVED_TOOL_NAMES.handoff) return HANDOFF_ASKED;
  return 'No result: the reply ended before this call completed.';
}

/**
 * The card (or page tool call) a `toolAction` message answers, and the answer as the model reads it. A page's answer
 * names its call; a card's may name only its kind (`card`), answering the latest one open.
 */
function cardAnswer(raw: UserRawEvent): { card?: string; toolUseId?: string; text: string } | undefined {
  const page = readClientToolAnswer(raw);
  if (page) return { toolUseId: page.toolUseId, text: pageAnswerText(page) };
  const answer = raw.toolAction ? readCardAnswer(raw, '') : undefined;
  if (answer?.kind === 'infoCollect') {
    return {
      card: RESERVED_TOOL_NAMES.infoCollect,
      toolUseId: answer.toolUseId,
      text:
        answer.action === 'submit'
          ? `The visitor submitted the form: ${JSON.stringify(answer.values ?? {})}`
          : 'The visitor skipped the form.',
    };
  }
  if (answer?.kind === 'connectorSetup') {
    return {
      card: RESERVED_TOOL_NAMES.connectorSetup,
      toolUseId: answer.toolUseId,
      text: `The visitor saved their credentials for ${answer.connectorTypeId}.`,
    };
  }
  return undefined;
}

const textOf = (content: ContentBlock[]) =>
  content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
