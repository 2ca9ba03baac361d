import { createRequire } from 'node:module';
import type { ClientToolDeclaration } from '@svc/agent-sdk/protocol';
import { CLIENT_TOOL_LIMITS, clientToolNameProblem } from '@svc/agent-sdk/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { documented } from '../http/openapi.js';
import { boundedJson, formatBytes } from '../services/limits.js';

/*
 * Tools the page gives the chat (docs/protocol.md "Tools the page gives the chat"): a send's, a regenerate's and an
 * edit's `clientTools`, and the answer a `toolAction` message carries in `metadata.clientTool`.
 */

const L = CLIENT_TOOL_LIMITS;

/**
 * Reads a declaration's `parameters` against the JSON Schema meta-schemas (2020-12, and draft-07, which many
 * generators write) and never compiles them: the service runs no page's schema (its patterns are the model
 * endpoint's to read), so no page can make it run a regular expression of its choosing.
 */
const metaSchemas = new Ajv2020({ validateFormats: false, strict: false });
metaSchemas.addMetaSchema(createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json'));

/** What is wrong with `schema` as a tool's `parameters`, or undefined when nothing is. */
function parametersProblem(schema: Record<string, unknown>): string | undefined {
  let valid: boolean;
  try {
    valid = metaSchemas.validateSchema(schema) as boolean;
  } catch {
    return 'names a JSON Schema version other than 2020-12 and draft-07 in $schema';
  }
  if (!valid) {
    const [first] = metaSchemas.errors ?? [];
    return `is not a JSON Schema: ${first?.instancePath.slice(1) || 'the schema'} ${first?.message ?? 'is invalid'}`;
  }
  if (schema.type !== 'object') return 'must be the JSON Schema of an object (type: object)';
  return undefined;
}

const declaration: z.ZodType<ClientToolDeclaration> = z.object({
  name: z
    .string()
    .superRefine((name, issue) => {
      const problem = clientToolNameProblem(name);
      if (problem) issue.addIssue({ code: 'custom', message: problem });
    })
    .describe('A letter, then up to 63 letters, digits, `_` and `-`; no `__`, and no reserved tool name.'),
  description: z.string().min(1).max(L.descriptionLength).describe('What the tool does, for the model.'),
  parameters: documented(
    boundedJson(z.record(z.unknown()), L.parametersBytes).superRefine((schema: Record<string, unknown>, issue) => {
      const problem = parametersProblem(schema);
      if (problem) issue.addIssue({ code: 'custom', message: problem });
    }) as z.ZodType<Record<string, unknown>>,
    {
      type: 'object',
      description: `A JSON Schema (2020-12 or draft-07) of an object: the input the model writes; at most ${formatBytes(L.parametersBytes)} as JSON.`,
    },
  ),
});

/** `clientTools` of a send, a regenerate and an edit. */
export const clientTools = documented(
  boundedJson(z.array(declaration).max(L.count), L.declarationsBytes).superRefine((tools, issue) => {
    const seen = new Set<string>();
    for (const [i, tool] of tools.entries()) {
      if (seen.has(tool.name)) issue.addIssue({ code: 'custom', path: [i, 'name'], message: 'is declared twice' });
      seen.add(tool.name);
    }
  }),
  {
    maxItems: L.count,
    description:
      `The tools the host page offers the model for this turn, beside the agent's own (at most ${L.count}, ` +
      `${formatBytes(L.declarationsBytes)} as JSON): the model may call only these, in this turn. A call is the ` +
      "agent's `tool_use` block with `client: true`, and the turn ends waiting for the page's answer.",
  },
).optional();

const answer = z
  .object({
    toolUseId: z.string().min(1).max(200),
    output: boundedJson(z.unknown(), L.valueBytes).optional(),
    error: z.string().min(1).max(L.errorLength).optional(),
  })
  .strict()
  .refine((a) => (a.output === undefined) !== (a.error === undefined), 'must hold either output or error');

/**
 * The answer to a page tool call in a send's `metadata` (`{ clientTool: { toolUseId, output | error } }`), checked
 * where it is present: it goes with `toolAction: true`, names the call, and holds a bounded output or a sentence.
 */
export function checkClientToolAnswer(
  body: { metadata?: Record<string, unknown>; toolAction?: boolean },
  issue: z.RefinementCtx,
): void {
  const value = body.metadata?.clientTool;
  if (value === undefined) return;
  const path = ['metadata', 'clientTool'];
  if (!body.toolAction) issue.addIssue({ code: 'custom', path, message: 'answers a page tool only with toolAction' });
  const parsed = answer.safeParse(value);
  for (const found of parsed.error?.issues ?? []) issue.addIssue({ ...found, path: [...path, ...found.path] });
}

/** The refusals of a send's page tools and answers, as the OpenAPI document lists them. */
export const CLIENT_TOOL_REFUSALS = {
  400: {
    'body/clientTools/0/name is the name of a reserved tool': 'A declaration is refused (zod words each problem).',
    'body/clientTools/0/parameters must be the JSON Schema of an object (type: object)':
      '`parameters` is not a JSON Schema of an object.',
    [`body/clientTools must be at most ${formatBytes(L.declarationsBytes)} as JSON`]:
      '`clientTools` is over its limit.',
    'body/metadata/clientTool must hold either output or error': 'An answer to a page tool call is malformed.',
  },
};
