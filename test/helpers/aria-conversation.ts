import { ChatClient } from '../../src/client/chat.js';
import { HttpClient } from '../../src/client/http.js';
import { service } from './browser-service.js';

/** A conversation of the demo agent Aria made of `commands` (its commands: `/markdown`, `/form`…), sent over the client. */
export async function ariaConversation(token: string, commands: string[]): Promise<string> {
  const { url } = await service();
  const chat = new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));
  let conversationId: string | undefined;
  for (const message of commands) {
    const turn = await chat.sendMessage({
      message,
      conversationId,
      targetAgentIds: ['agent_aria'],
      newConversation: !conversationId,
    });
    conversationId = turn.conversationId;
  }
  return conversationId!;
}
