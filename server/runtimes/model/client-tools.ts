import type { ClientToolAnswer, ClientToolDeclaration } from '@svc/agent-sdk/protocol';
import { CLIENT_TOOL_LIMITS } from '@svc/agent-sdk/protocol';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

/** What the model reads of a call of a page tool that no answer has reached yet. */
export const PAGE_WAITING = 'The page has not answered this call yet.';

/**
 * The tools the page gave the chat for this turn, as functions beside the agent's own (docs/server.md "The model
 * runtime"). The service checks that a call's input is a JSON object within its bound, never against the tool's
 * `parameters` (it runs no page's schema): the page's handler reads its input as it would any other.
 */
export function pageTools(declared: ClientToolDeclaration[]) {
  const names = new Set(declared.map((tool) => tool.name));
  const definitions: ChatCompletionFunctionTool[] = declared.map(({ name, description, parameters }) => ({
    type: 'function',
    function: { name, description, parameters },
  }));
  return {
    definitions,
    has: (name: string) => names.has(name),
    /** Why the page cannot be given this input (the model reads it in the same turn); undefined when it can. */
    problem(input: Record<string, unknown>): string | undefined {
      const bytes = Buffer.byteLength(JSON.stringify(input));
      return bytes > CLIENT_TOOL_LIMITS.valueBytes
        ? `The input is ${bytes} bytes as JSON; a page tool takes at most ${CLIENT_TOOL_LIMITS.valueBytes}.`
        : undefined;
    },
  };
}

export type PageTools = ReturnType<typeof pageTools>;

/** The page's answer as the model reads it: what the tool returned, as JSON, or why it could not run. */
export function pageAnswerText(answer: ClientToolAnswer): string {
  return 'error' in answer ? `The page could not run the tool: ${answer.error}` : JSON.stringify(answer.output);
}
