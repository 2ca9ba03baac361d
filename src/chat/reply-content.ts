import type {
  ChatStreamRecord,
  ConnectorSetupRequest,
  ContentBlock,
  Delegation,
  InfoCollectPayload,
} from '../protocol/record-types.js';
import {
  extractConnectorSetup,
  extractDelegations,
  extractInfoCollect,
  extractSuggestions,
  extractText,
  RESERVED_TOOL_NAMES,
} from '../protocol/records.js';

/**
 * What an `assistant` record shows: its text, its other blocks, the cards its reserved tool calls ask for and
 * the replies it suggests.
 */
export interface ReplyContent {
  text: string;
  blocks: ContentBlock[];
  /** How many of `blocks` the agent produced before its text. */
  blocksBeforeText: number;
  infoCollect: InfoCollectPayload[];
  connectorSetup: ConnectorSetupRequest[];
  delegations: Delegation[];
  suggestions: string[];
}

const RESERVED: ReadonlySet<string> = new Set(Object.values(RESERVED_TOOL_NAMES));

export function readReply(record: ChatStreamRecord): ReplyContent {
  const content = record.raw.type === 'assistant' ? record.raw.message.content : [];
  const infoCollect = extractInfoCollect(record);
  // Reserved tool calls are rendered as cards (or suggested replies), not as tool calls.
  const shown = (block: ContentBlock) =>
    block.type !== 'text' && !(block.type === 'tool_use' && RESERVED.has(block.name));
  const firstText = content.findIndex((block) => block.type === 'text');
  return {
    text: extractText(record),
    blocks: content.filter(shown),
    blocksBeforeText: (firstText < 0 ? content : content.slice(0, firstText)).filter(shown).length,
    infoCollect: infoCollect ? [infoCollect] : [],
    connectorSetup: extractConnectorSetup(record),
    delegations: extractDelegations(record),
    suggestions: extractSuggestions(record),
  };
}
