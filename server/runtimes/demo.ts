import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONNECTOR_TYPE_ID, RESERVED_TOOL_NAMES } from '@svc/agent-sdk/protocol';
import {
  chartSvg,
  DATA_CSV,
  HELP,
  INTRODUCTION_SUGGESTIONS,
  introduction,
  LONG_MARKDOWN,
  REPORT_MD,
  SLOW_WORDS,
  SUGGESTIONS,
} from './demo-content.js';
import { cart, pageAnswered } from './demo-page-tools.js';
import { say, toolUse } from './demo-say.js';
import { paymentProblem, ReplyFailure, type Runtime, type TurnInput, type TurnIO, writtenCny } from './types.js';

/**
 * The demo agent: each slash command shows one kind of record, so the widget can be tried (and tested)
 * end to end without a model. Card and page tool answers (`toolAction` with `metadata`) are handled before commands.
 */
export const demoRuntime: Runtime = {
  async run(input, io) {
    if (input.payment) return paymentSettled(input, io);
    const cardAnswer = input.toolAction ? (pageAnswered(input, io) ?? answerCard(input, io)) : undefined;
    if (cardAnswer) return cardAnswer;
    const [command = '', ...args] = input.text.trim().split(/\s+/);
    const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (handler) return handler(args, input, io);
    if (input.delegatedBy) {
      return say(io, `${input.agent.name} here, taking over from ${input.delegatedBy.name}: “${input.text}”. Done!`);
    }
    const back = personBefore(input);
    const intro = introduction(input.agent.name);
    // A newcomer's first message is free text: the answer offers commands to tap (INTRODUCTION_SUGGESTIONS).
    return say(io, back ? `${back} ${intro}` : intro, {
      after: [toolUse(RESERVED_TOOL_NAMES.suggestReplies, { suggestions: INTRODUCTION_SUGGESTIONS })],
    });
  },
};

/** What the visitor reads of the reply `/error` fails on purpose. */
export const DEMO_FAILURE = 'This reply failed on purpose, to show what a failed reply looks like.';

type Command = (args: string[], input: TurnInput, io: TurnIO) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  '/help': (_args, _input, io) => say(io, HELP),
  '/markdown': (_args, _input, io) => say(io, LONG_MARKDOWN, { chunk: 48, delayMs: 8 }),
  '/slow': slow,
  '/tool': tool,
  '/form': async (_args, _input, io) => {
    await say(io, 'Please tell me a little about yourself.', { after: [formCard()] });
  },
  '/suggest': (_args, _input, io) =>
    say(io, 'Here are a few things to try next.', {
      after: [toolUse(RESERVED_TOOL_NAMES.suggestReplies, { suggestions: SUGGESTIONS })],
    }),
  '/connect': connect,
  '/pay': pay,
  '/cart': cart,
  '/file': file,
  '/image': image,
  '/delegate': delegate,
  '/human': human,
  '/think': (_args, _input, io) =>
    say(io, 'The answer is **42**.', {
      before: [{ type: 'thinking', thinking: 'The user wants to see reasoning. Six times seven is 42.' }],
    }),
  '/error': async (_args, _input, io) => {
    await say(io, 'Trying something that will fail…');
    throw new ReplyFailure(DEMO_FAILURE);
  },
};

async function slow([seconds]: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  const duration = Math.min(Math.max(Number(seconds) || 5, 1), 120);
  const tickMs = 100;
  const stream = io.streamText();
  for (let tick = 0; tick < (duration * 1000) / tickMs; tick++) {
    stream.write(`${SLOW_WORDS[tick % SLOW_WORDS.length]} `);
    await sleep(tickMs, undefined, { signal: io.signal });
  }
  stream.end();
}

async function tool(_args: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  await say(io, 'Let me check the weather and your calendar.', {
    after: [toolUse('get_weather', { city: 'Shanghai' }), toolUse('list_events', { day: 'today' })],
  });
  io.status('tool');
  await sleep(300, undefined, { signal: io.signal });
  await say(io, 'It is 21 °C and sunny in Shanghai. You have two meetings today: 10:00 stand-up, 15:00 design review.');
}

const formCard = () =>
  toolUse('collect_info', {
    title: 'Book a demo',
    description: 'We will contact you to find a time.',
    submitLabel: 'Send',
    fields: [
      { name: 'name', label: 'Name', type: 'text', required: true, placeholder: 'Ada Lovelace' },
      { name: 'email', label: 'Email', type: 'email', required: true, placeholder: 'ada@example.com' },
      { name: 'phone', label: 'Phone', type: 'phone', placeholder: '+8613800000000' },
      { name: 'seats', label: 'Team size', type: 'number' },
      { name: 'date', label: 'Preferred date', type: 'date' },
      { name: 'plan', label: 'Plan', type: 'select', options: ['Starter', 'Team', 'Enterprise'] },
      { name: 'notes', label: 'Anything else?', type: 'textarea' },
    ],
  });

/** The answer to a card this agent showed, or undefined when the metadata answers none. */
function answerCard(input: TurnInput, io: TurnIO): Promise<void> | undefined {
  const info = input.metadata?.infoCollect as { action?: string; values?: Record<string, unknown> } | undefined;
  if (info?.action === 'skip') return say(io, 'No problem, we can skip the form.');
  if (info?.action === 'submit') {
    const lines = Object.entries(info.values ?? {}).map(([name, value]) => `- **${name}**: ${String(value)}`);
    return say(io, `Thank you! I received:\n\n${lines.join('\n')}`);
  }
  const setup = input.metadata?.connectorSetup as { connectorTypeId?: string } | undefined;
  if (setup?.connectorTypeId) return reportConnector(setup.connectorTypeId, io, true);
  return undefined;
}

/** `/connect Notion` connects `notion`: a connector type id is lower case (CONNECTOR_TYPE_ID). */
async function connect([name]: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  const typeId = name?.toLowerCase();
  if (!typeId || !CONNECTOR_TYPE_ID.test(typeId)) {
    return say(io, 'Tell me which service to connect, e.g. `/connect github`.');
  }
  return reportConnector(typeId, io, false);
}

/** How known services write their names; another is named by its id with a capital. */
const CONNECTOR_NAMES: Record<string, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  openai: 'OpenAI',
  hubspot: 'HubSpot',
  youtube: 'YouTube',
  linkedin: 'LinkedIn',
  paypal: 'PayPal',
  wechat: 'WeChat',
  dingtalk: 'DingTalk',
  google_drive: 'Google Drive',
  'google-drive': 'Google Drive',
};

const connectorName = (typeId: string): string =>
  CONNECTOR_NAMES[typeId.toLowerCase()] ?? typeId.charAt(0).toUpperCase() + typeId.slice(1);

/** Says a connector is connected, or shows the card that asks for its credentials; both name it as the card does. */
async function reportConnector(typeId: string, io: TurnIO, afterSetup: boolean): Promise<void> {
  const name = connectorName(typeId);
  const credentials = await io.connectorCredentials(typeId);
  if (credentials) {
    const fields = Object.keys(credentials).join(', ');
    const lead = afterSetup ? `Thanks, **${name}** is connected now` : `**${name}** is connected`;
    return say(io, `${lead} (stored fields: ${fields}).`);
  }
  const lead = afterSetup
    ? `I still find no credentials for **${name}**. Please fill in the card again.`
    : `To use **${name}** I need your own API key.`;
  await say(io, lead, {
    after: [
      toolUse('setup_connector', {
        connectorTypeId: typeId,
        name,
        description: 'Your key is stored encrypted and used only for your requests.',
        fields: [
          { name: 'api_key', label: 'API key', secret: true, required: true, placeholder: 'sk-…' },
          { name: 'account', label: 'Account', placeholder: 'you@example.com' },
        ],
      }),
    ],
  });
}

const PAY_USAGE = 'Usage: `/pay AMOUNT [SECONDS]`, e.g. `/pay 9.9` or `/pay 20 60` (expires after 60 seconds).';

async function pay([amount, seconds]: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  const amountCny = Number(amount);
  const expiresInSeconds = seconds === undefined ? 900 : Number(seconds);
  if (!amount || Number.isNaN(amountCny) || !Number.isInteger(expiresInSeconds)) return say(io, PAY_USAGE);
  const problem = paymentProblem(amountCny, expiresInSeconds);
  if (problem) return say(io, `${problem} ${PAY_USAGE}`);
  await say(io, `Here is a payment card for ${writtenCny(amountCny)}.`);
  io.paymentGate({
    amountCny,
    title: 'Demo order',
    description: 'Paid on the local pay page of the reference service.',
    expiresInSeconds,
  });
}

/** The turn after the visitor paid or canceled an order of `/pay`: one sentence on its outcome. */
function paymentSettled(input: TurnInput, io: TurnIO): Promise<void> {
  const { orderId, status } = input.payment!;
  const gate = input.history.find((r) => r.raw.type === 'payment_gate' && r.raw.payment.orderId === orderId);
  const amount = gate?.raw.type === 'payment_gate' ? ` of ${writtenCny(gate.raw.payment.amountCny)}` : '';
  if (status === 'paid') return say(io, `Thank you, your payment${amount} is received.`);
  return say(io, `Your payment${amount} was ${status}; nothing was charged. Send \`/pay\` again when you like.`);
}

/**
 * Writes the report (under the visitor's NAME, as an agent may name files as it likes: the service shows them
 * by its file name rule) and its data.
 */
async function file([named]: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  // Only the last segment (after `/` or `\\`) is written, so that no name leaves the conversation's folder.
  const report = named ? (named.split(/[/\\]/).pop() ?? '') : 'report.md';
  if (report === '' || report === '.' || report === '..') return say(io, 'Usage: `/file [NAME]`, e.g. `/file q3.md`.');
  await say(io, 'I wrote a short report and its data for you.');
  const dir = io.workspaceDir();
  for (const [path, name, content, mimeType] of [
    [report, named ?? report, REPORT_MD, 'text/markdown'],
    ['data.csv', 'data.csv', DATA_CSV, 'text/csv'],
  ] as const) {
    writeFileSync(join(dir, path), content);
    io.attachment({ name, workspacePath: path, mimeType, size: Buffer.byteLength(content) });
  }
}

async function image(_args: string[], _input: TurnInput, io: TurnIO): Promise<void> {
  const uploaded = await io.upload({
    filename: 'chart.svg',
    mimeType: 'image/svg+xml',
    data: Buffer.from(chartSvg([14, 19, 22, 25, 21, 15, 12])),
  });
  io.message([
    { type: 'text', text: 'Conversations per day this week:' },
    { type: 'image', source: { type: 'url', url: uploaded.url } },
  ]);
}

async function delegate(args: string[], input: TurnInput, io: TurnIO): Promise<void> {
  if (input.delegatedBy) return say(io, 'I cannot hand over a task that was handed to me.');
  const others = input.workspaceAgents.filter((a) => a.id !== input.agent.id);
  const other = others.find((a) => a.runtime === 'demo') ?? others[0];
  if (!other) return say(io, 'There is no other agent in this workspace to hand this to.');
  const task = args.join(' ') || 'Say hello to the user.';
  await say(io, `Handing this to ${other.name}.`, {
    after: [toolUse('delegate', { agentId: other.id, agentName: other.name, task })],
  });
  await io.delegate(other.id, task);
}

/** `/human [REASON]`: the agent asks for a person of the staff (docs/protocol.md "A person in the conversation"). */
async function human(args: string[], input: TurnInput, io: TurnIO): Promise<void> {
  if (!input.operators) return say(io, 'Nobody from the team can join this chat here.');
  const reason = args.join(' ') || undefined;
  await say(io, 'I am asking a person from the team to join this conversation.', {
    after: [toolUse(RESERVED_TOOL_NAMES.handoff, reason ? { reason } : {})],
  });
  io.handoff(reason);
}

/**
 * When a person gave the conversation back and this is the agent's first answer since: what the agent read of them
 * (their last message), so a visitor sees it knows what was said.
 */
function personBefore(input: TurnInput): string | undefined {
  const since = input.history.findLastIndex((r) => r.raw.type === 'operator_left' || r.raw.type === 'assistant');
  const left = input.history[since]?.raw;
  if (left?.type !== 'operator_left') return undefined;
  const said = input.history.findLast((r) => r.raw.type === 'operator_message');
  const text = said?.raw.type === 'operator_message' ? said.raw.message.content.map((b) => b.text).join(' ') : '';
  const name = left.operator.name;
  return text ? `Welcome back! ${name} handed you back to me; ${name} last wrote: “${text}”.` : `Welcome back!`;
}
