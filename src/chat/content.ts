import {
  extractConnectorSetup,
  extractDelegations,
  extractInfoCollect,
  extractText,
  RESERVED_TOOL_NAMES,
} from '../client/events.js';
import type {
  ChatStreamRecord,
  ConnectorSetupRequest,
  ContentBlock,
  Delegation,
  InfoCollectPayload,
  UserRawEvent,
} from '../client/types.js';
import type { InfoCollectAnswer } from './chat-message.js';

/** What an `assistant` record shows: its text, its other blocks, and the cards its reserved tool calls ask for. */
export interface ReplyContent {
  text: string;
  blocks: ContentBlock[];
  infoCollect: InfoCollectPayload[];
  connectorSetup: ConnectorSetupRequest[];
  delegations: Delegation[];
}

const RESERVED: ReadonlySet<string> = new Set(Object.values(RESERVED_TOOL_NAMES));

export function readReply(record: ChatStreamRecord): ReplyContent {
  const content = record.raw.type === 'assistant' ? record.raw.message.content : [];
  const infoCollect = extractInfoCollect(record);
  return {
    text: extractText(record),
    // Reserved tool calls are rendered as cards, not as tool calls.
    blocks: content.filter(
      (block) => block.type !== 'text' && !(block.type === 'tool_use' && RESERVED.has(block.name)),
    ),
    infoCollect: infoCollect ? [infoCollect] : [],
    connectorSetup: extractConnectorSetup(record),
    delegations: extractDelegations(record),
  };
}

/** A card answer carried by a `toolAction` user message; `at` is its record id. */
export type CardAnswer =
  | ({ kind: 'infoCollect'; at: string; toolUseId?: string } & InfoCollectAnswer)
  | { kind: 'connectorSetup'; at: string; toolUseId?: string; connectorTypeId: string };

/** The card answer in a `toolAction` message's `metadata` (docs/protocol.md, reserved tool names), if any. */
export function readAnswer(raw: UserRawEvent, at: string): CardAnswer | undefined {
  const info = objectOr(raw.metadata?.infoCollect);
  if (info && (info.action === 'submit' || info.action === 'skip')) {
    return {
      kind: 'infoCollect',
      at,
      action: info.action,
      ...(typeof info.toolUseId === 'string' ? { toolUseId: info.toolUseId } : {}),
      ...(objectOr(info.values) ? { values: info.values as Record<string, unknown> } : {}),
    };
  }
  const setup = objectOr(raw.metadata?.connectorSetup);
  if (setup && typeof setup.connectorTypeId === 'string') {
    return {
      kind: 'connectorSetup',
      at,
      connectorTypeId: setup.connectorTypeId,
      ...(typeof setup.toolUseId === 'string' ? { toolUseId: setup.toolUseId } : {}),
    };
  }
  return undefined;
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
