import type { ClientToolDeclaration, MessagePart, SendResult } from '@svc/agent-sdk/protocol';
import { extractText } from '@svc/agent-sdk/protocol';
import { type Caller, ownConversation } from '../http/auth.js';
import type { AppContext } from '../services/context.js';
import { Refusal } from '../services/refusal.js';
import { lockConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { lastUserRecord } from '../store/history-rows.js';
import type { SendKey } from '../store/send-result-rows.js';
import { beginTurn, type UserMessage } from './begin-turn.js';

/** What regenerate (nothing) and edit (`message`, `parts`) change of the last question. */
export interface Replacement {
  message?: string;
  parts?: MessagePart[];
  mcpTokens?: Record<string, string>;
  clientTools?: ClientToolDeclaration[];
  baseUrl: string;
}

/**
 * Regenerate and edit: a new turn that asks the conversation's last question again (regenerate) or the
 * visitor's edit of it, in place of the last turn. Its user record says which turn it replaces (`replaces`);
 * the replaced records stay in history, and runtimes (`withoutReplaced`) and the widget leave them out.
 * Refused like a send (while a reply runs …), and when there is no question yet (`nothing_to_replace`), when an
 * edit would change a card's answer (`card_answer`), or when another message came in between reading the last
 * one and the write (`conversation_changed`).
 */
export async function replaceLastTurn(
  ctx: AppContext,
  caller: Caller,
  conversationId: string,
  change: Replacement,
  once?: SendKey,
): Promise<SendResult> {
  const conversation = await ownConversation(ctx.db, caller, conversationId);
  const last = await lastUserRecord(ctx.db, conversation.id);
  if (last?.raw.type !== 'user' || !last.turnId) throw new Refusal('nothing_to_replace');
  const asked = last.raw;
  const editing = change.message !== undefined;
  if (editing && asked.toolAction) throw new Refusal('card_answer');
  const message: UserMessage = {
    text: editing ? change.message! : extractText(last),
    parts: editing ? change.parts : asked.parts,
    metadata: editing ? undefined : asked.metadata,
    toolAction: editing ? undefined : asked.toolAction,
    senderName: asked.senderName,
    senderAvatar: asked.senderAvatar,
    mcpTokens: change.mcpTokens,
    clientTools: change.clientTools,
    baseUrl: change.baseUrl,
    replaces: last.turnId,
  };
  const target = async (tx: Db) => {
    // Under the conversation's lock (beginTurn's), so no message comes in between this check and the write.
    await lockConversation(tx, conversation.id);
    if ((await lastUserRecord(tx, conversation.id))?.id !== last.id) throw new Refusal('conversation_changed');
    return conversation;
  };
  return beginTurn(ctx, target, message, once);
}
