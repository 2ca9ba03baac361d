import type { TokenProvider } from '../../client/auth.js';
import type { ChatClient } from '../../client/chat.js';
import { type PersistedChat, persistedChat } from '../../internal/persist.js';
import type { ChatLabels } from '../../labels/label-types.js';

export type ChatMode = 'inline' | 'launcher';

/** The properties of `<svc-chat>` its connection to the service is built from. */
export interface ChatSettings {
  baseUrl?: string;
  agentId?: string;
  agentIds?: string;
  conversationId?: string;
  token?: string;
  tokenEndpoint?: string;
  tokenCredentials?: RequestCredentials;
  tokenProvider?: TokenProvider;
  client?: { chat: ChatClient };
  signIn?: string;
  workspace?: string;
  persist?: string;
}

/** What `<svc-chat>` hands its panel (`<svc-chat-panel>`): its own properties of these names, as they are. */
export interface PanelSettings extends ChatSettings {
  mode: ChatMode;
  persistSession: boolean;
  heading?: string;
  imageHosts?: string;
  labels?: Partial<ChatLabels>;
  agents?: Record<string, { name: string; avatar?: string }>;
  showThinking: boolean;
  accept?: string;
}

/** The names of {@link PanelSettings}: the launcher copies each to its panel, which declares each a property. */
export const PANEL_SETTINGS = [
  'baseUrl',
  'agentId',
  'agentIds',
  'conversationId',
  'token',
  'tokenEndpoint',
  'tokenCredentials',
  'tokenProvider',
  'client',
  'signIn',
  'workspace',
  'persist',
  'mode',
  'persistSession',
  'heading',
  'imageHosts',
  'labels',
  'agents',
  'showThinking',
  'accept',
] as const satisfies readonly (keyof PanelSettings)[];

/** The agents of new conversations, from `agent-ids` (space or comma separated) or `agent-id`. */
export function targetAgentIds({ agentIds, agentId }: ChatSettings): string[] | undefined {
  const ids = (agentIds ?? agentId ?? '').split(/[\s,]+/).filter(Boolean);
  return ids.length ? ids : undefined;
}

/**
 * Where `persist` keeps the conversation of a chat with these settings (`which`: the one shown, or the one
 * before the visitor started a new one), and for the tab whether its panel is open, the visitor's unsent
 * text and the outbox (messages not sent yet); none without `persist`.
 */
export function persistedConversation(
  settings: ChatSettings,
  which: 'shown' | 'previous' | 'open' | 'draft' | 'outbox' = 'shown',
): PersistedChat | undefined {
  const { persist } = settings;
  if (persist === undefined || persist === null) return undefined;
  const slot = persist || settings.baseUrl || location.origin;
  return persistedChat(
    `${slot}|${targetAgentIds(settings)?.join(',') ?? ''}${which === 'shown' ? '' : `|${which}`}`,
    which === 'open' || which === 'draft' || which === 'outbox',
  );
}
