import { CONNECTOR_TYPE_ID, RESERVED_TOOL_NAMES, SUGGESTION_LIMITS } from '@svc/agent-sdk/protocol';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod/v4';
import type { AgentRow } from '../../store/agent-rows.js';
import { HANDOFF_DESCRIPTION, handoffInput } from './handoff.js';

/** The function a model calls for a payment card (the card itself is a `payment_gate` record). */
export const PAYMENT_TOOL = RESERVED_TOOL_NAMES.requestPayment;

const FIELD_NAME = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/);

const collectInfo = z.object({
  title: z.string().min(1).max(200),
  description: z.string().max(1000).optional(),
  submitLabel: z.string().max(40).optional(),
  fields: z
    .array(
      z.object({
        name: FIELD_NAME,
        label: z.string().min(1).max(200),
        type: z.enum(['text', 'email', 'phone', 'number', 'date', 'select', 'textarea']),
        required: z.boolean().optional(),
        placeholder: z.string().max(200).optional(),
        options: z.array(z.string().max(200)).max(50).optional().describe('the choices of a select field'),
      }),
    )
    .min(1)
    .max(20),
});

const setupConnector = z.object({
  connectorTypeId: z
    .string()
    .regex(CONNECTOR_TYPE_ID, 'lower-case letters, digits, _ and -, beginning with a letter or digit')
    .describe('the service to connect in lower case, e.g. github'),
  name: z.string().min(1).max(100).describe('the service as the visitor knows it'),
  description: z.string().max(1000).optional(),
  fields: z
    .array(
      z.object({
        name: FIELD_NAME,
        label: z.string().min(1).max(200),
        secret: z.boolean().optional(),
        placeholder: z.string().max(200).optional(),
        required: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(10),
});

const requestPayment = z.object({
  amount_cny: z
    .number()
    .min(0.01)
    .max(100_000)
    // Whole fen, as an order takes (paymentProblem): a model's 9.999 comes back to it as this error, not a failed turn.
    .refine((amount) => Number(amount.toFixed(2)) === amount, 'an amount has at most 2 decimal places (whole fen)')
    .describe('the amount in CNY (yuan), at most 2 decimal places'),
  title: z.string().min(1).max(200).describe('what the visitor pays for'),
  description: z.string().max(1000).optional(),
});

const suggestReplies = z.object({
  suggestions: z
    .array(z.string().trim().min(1).max(SUGGESTION_LIMITS.length))
    .min(1)
    .max(SUGGESTION_LIMITS.count)
    .describe('short replies, each written as the visitor would type it'),
});

export type CardCall =
  | {
      name: typeof RESERVED_TOOL_NAMES.infoCollect;
      input: z.infer<typeof collectInfo>;
    }
  | {
      name: typeof RESERVED_TOOL_NAMES.connectorSetup;
      input: z.infer<typeof setupConnector>;
    }
  | { name: typeof PAYMENT_TOOL; input: z.infer<typeof requestPayment> }
  | {
      name: typeof RESERVED_TOOL_NAMES.delegate;
      input: { agentId: string; agentName: string; task: string };
    }
  | {
      name: typeof RESERVED_TOOL_NAMES.suggestReplies;
      input: z.infer<typeof suggestReplies>;
    }
  | {
      name: typeof RESERVED_TOOL_NAMES.handoff;
      input: z.infer<typeof handoffInput>;
    };

/**
 * The reserved card tools as functions for the model, and a reader that checks a call's arguments. A card
 * waits for the visitor; a delegation hands the task to another agent of the workspace (not offered to an
 * agent that was itself handed a task, so hand-overs cannot loop); suggested replies end the reply with chips
 * the visitor may tap instead of typing; `handoff` (where the workspace has operators) asks for a person of the staff.
 */
export function cardTools(agent: AgentRow, workspaceAgents: AgentRow[], delegated: boolean, operators: boolean) {
  const others = delegated ? [] : workspaceAgents.filter((a) => a.id !== agent.id);
  const delegate = others.length
    ? z.object({
        agentId: z.enum(others.map((a) => a.id) as [string, ...string[]]),
        task: z.string().min(1).max(4000).describe('what the other agent should do, in full'),
      })
    : undefined;
  const schemas: Record<string, z.ZodType> = {
    [RESERVED_TOOL_NAMES.infoCollect]: collectInfo,
    [RESERVED_TOOL_NAMES.connectorSetup]: setupConnector,
    [PAYMENT_TOOL]: requestPayment,
    [RESERVED_TOOL_NAMES.suggestReplies]: suggestReplies,
    ...(delegate ? { [RESERVED_TOOL_NAMES.delegate]: delegate } : {}),
    ...(operators ? { [RESERVED_TOOL_NAMES.handoff]: handoffInput } : {}),
  };
  const descriptions: Record<string, string> = {
    [RESERVED_TOOL_NAMES.infoCollect]:
      'Shows the visitor a form card and waits for it: use it to collect details such as name, email or a date. The answer comes back as the result.',
    [RESERVED_TOOL_NAMES.connectorSetup]:
      'Shows a card where the visitor enters their own credentials (an API key or token) for an outside service; they are stored encrypted. The result says when they are saved.',
    [PAYMENT_TOOL]: 'Shows a payment card for an amount in CNY and waits; the result tells whether it was paid.',
    [RESERVED_TOOL_NAMES.suggestReplies]:
      'Offers the visitor up to 4 short replies to tap under your answer, such as likely follow-up questions. Call it together with your final answer, never instead of it: it ends your reply. Write each suggestion as the visitor would type it, in their language.',
    [RESERVED_TOOL_NAMES.delegate]: `Hands the visitor's request to another agent of this workspace, who answers the visitor directly. Agents: ${others
      .map((a) => `${a.id} (${a.name}${a.description ? `: ${a.description}` : ''})`)
      .join('; ')}.`,
    [RESERVED_TOOL_NAMES.handoff]: HANDOFF_DESCRIPTION,
  };
  const definitions: ChatCompletionFunctionTool[] = Object.entries(schemas).map(([name, schema]) => {
    const { $schema: _, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
    return {
      type: 'function',
      function: { name, description: descriptions[name], parameters },
    };
  });
  return {
    definitions,
    has: (name: string) => Object.hasOwn(schemas, name),
    /** The checked call, or the sentence that tells the model what is wrong with its arguments. */
    read(name: string, args: Record<string, unknown>): CardCall | { error: string } {
      const parsed = schemas[name]!.safeParse(args);
      if (!parsed.success) return { error: `Invalid arguments: ${z.prettifyError(parsed.error)}` };
      if (name !== RESERVED_TOOL_NAMES.delegate) return { name, input: parsed.data } as CardCall;
      const input = parsed.data as { agentId: string; task: string };
      const other = others.find((a) => a.id === input.agentId)!;
      return {
        name,
        input: { agentId: other.id, agentName: other.name, task: input.task },
      };
    },
  };
}

export type CardTools = ReturnType<typeof cardTools>;
