import {
  extractConnectorSetup,
  extractDelegations,
  extractInfoCollect,
  extractText,
  RESERVED_TOOL_NAMES,
} from '../client/records.js';
import type {
  ChatStreamRecord,
  ConnectorSetupRequest,
  ContentBlock,
  Delegation,
  InfoCollectPayload,
} from '../client/types.js';

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
