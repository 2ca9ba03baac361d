import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { ignoreOverride, type Options, zodToJsonSchema } from 'zod-to-json-schema';
import { credentialHeaders, ownerLoginHeaders, security, securitySchemes } from './auth.js';
import {
  errorBody,
  jsonBodyRefusals,
  PATH_REFUSALS,
  REQUEST_REFUSALS,
  type Refusals,
  SAFETY_HEADERS,
} from './errors.js';

/*
 * The OpenAPI 3.1 description of every route under /api/v2, generated from the routes' own zod schemas
 * (the ones that validate requests and type handlers), never written by hand. Served at
 * `GET /api/v2/openapi.json`, rendered at `/reference`.
 */

export const API_PREFIX = '/api/v2';
const REFERENCE_PATH = '/reference';

declare module 'fastify' {
  interface FastifySchema {
    /** The route's own refusals, for its description; those of the HTTP layer and the JSON parser are added. */
    refusals?: Refusals[];
  }
}

/** Shapes named once in `components.schemas` and referred to wherever a route uses them. */
type Components = Record<string, z.ZodTypeAny>;
type JsonSchema = Record<string, unknown>;

/** What the document says of a zod schema beyond what zod-to-json-schema reads from it (see `documented`). */
const DOCUMENTED = new WeakMap<z.ZodTypeDef, { json: JsonSchema; replace: boolean }>();

/**
 * `schema`, with JSON Schema that its description adds to what zod-to-json-schema reads: what a refinement
 * checks, examples. zod validates as before. Give the schema its final form first: `.optional()` keeps what
 * is added here, `.describe()` and `.extend()` make a new schema without it.
 */
export function documented<T extends z.ZodTypeAny>(schema: T, json: JsonSchema): T {
  DOCUMENTED.set(schema._def, { json, replace: false });
  return schema;
}

/** `schema`, described as `json` instead: a value zod reads in another form than the wire's (a query flag). */
export function documentedAs<T extends z.ZodTypeAny>(schema: T, json: JsonSchema): T {
  DOCUMENTED.set(schema._def, { json, replace: true });
  return schema;
}

/** Bytes: a file part of a multipart form, or a body that is not JSON. Documented only, never validated. */
export function binary(description: string): z.ZodType<unknown> {
  const bytes = { type: 'string', contentMediaType: 'application/octet-stream', description };
  return documentedAs(
    z.custom((value) => value !== undefined),
    bytes,
  );
}

/** A request body, an answer or a shared shape: its schema (which validates or types), its meaning, an example. */
export const described = <T extends z.ZodTypeAny>(description: string, schema: T, example?: z.input<T>): T =>
  documented(schema.describe(description), example === undefined ? {} : { examples: [example] });

/** A discriminated union is a `oneOf`; with named options, a `discriminator` too, which generators make classes of. */
function discriminated(json: JsonSchema, def: z.ZodDiscriminatedUnionDef<string>): JsonSchema {
  const { anyOf, ...rest } = json as { anyOf: JsonSchema[] };
  const refs = anyOf.map((option) => option.$ref);
  if (!refs.every((ref) => typeof ref === 'string')) return { ...rest, oneOf: anyOf };
  const values = def.options.map((option) => (option.shape[def.discriminator] as z.ZodLiteral<string>).value);
  const mapping = Object.fromEntries(values.map((value, i) => [value, refs[i]]));
  return { ...rest, oneOf: anyOf, discriminator: { propertyName: def.discriminator, mapping } };
}

/**
 * How zod schemas become JSON Schema of OpenAPI 3.1. The type provider's own transform writes OpenAPI 3.0
 * (`nullable`), and the converter's 2019-09 target the boolean `exclusiveMinimum` of draft 4; its draft-07
 * output is valid JSON Schema 2020-12.
 */
const CONVERSION = {
  target: 'jsonSchema7',
  // zod drops the fields an object does not name rather than refusing them: say nothing of them.
  removeAdditionalStrategy: 'strict',
  allowedAdditionalProperties: undefined,
  // A case-insensitive regex (a media type) as the pattern it is, in letters of both cases.
  applyRegexFlags: true,
  basePath: ['#', 'components'],
  definitionPath: 'schemas',
  postProcess: (json, def) => {
    const documentation = DOCUMENTED.get(def);
    if (documentation)
      return (documentation.replace ? documentation.json : { ...json, ...documentation.json }) as never;
    const { typeName } = def as { typeName?: z.ZodFirstPartyTypeKind };
    if (json && typeName === z.ZodFirstPartyTypeKind.ZodDiscriminatedUnion) {
      return discriminated(json as JsonSchema, def as z.ZodDiscriminatedUnionDef<string>) as never;
    }
    return json;
  },
} satisfies Partial<Options>;

/** The shared shapes as `components.schemas`, each converted once. */
function componentSchemas(components: Components): Record<string, unknown> {
  const converted = zodToJsonSchema(z.null(), { ...CONVERSION, definitions: components });
  return (converted as { schemas?: Record<string, unknown> }).schemas ?? {};
}

/** The names of the shared shapes, by the zod definition a route's schema meets them as. */
type Names = Map<z.ZodTypeDef, string>;

/** One schema of a route, a `$ref` wherever it meets a shared shape. */
function routeSchema(schema: z.ZodTypeAny, names: Names): JsonSchema {
  const { $schema: _, ...json } = zodToJsonSchema(schema, {
    ...CONVERSION,
    override: (def) => {
      const name = names.get(def);
      return name === undefined ? ignoreOverride : { $ref: `#/components/schemas/${name}` };
    },
  });
  return json;
}

const isZod = (value: unknown): value is z.ZodTypeAny => value instanceof z.ZodType;

type Media = { schema: z.ZodTypeAny } & Record<string, unknown>;
type Response = z.ZodTypeAny | { description: string; headers?: JsonSchema; content?: Record<string, Media> };

/** A media type of an answer: its zod schemas converted (`schema`, `x-itemSchema`), the example beside them. */
function media(entry: Media, names: Names) {
  const converted = Object.entries(entry).map(([key, value]) => [
    key,
    isZod(value) ? routeSchema(value, names) : value,
  ]);
  const { schema, ...rest } = Object.fromEntries(converted) as { schema: JsonSchema };
  const { examples, ...json } = schema as { examples?: unknown[] };
  return { schema: json, ...(examples && !('example' in rest) ? { example: examples[0] } : {}), ...rest };
}

/** An answer as @fastify/swagger takes it: a description, headers and content, or (no body) `type: 'null'`. */
function routeResponse(response: Response, names: Names) {
  if (!isZod(response)) {
    const content = Object.entries(response.content ?? {}).map(([type, entry]) => [type, media(entry, names)]);
    return content.length ? { ...response, content: Object.fromEntries(content) } : { ...response, type: 'null' };
  }
  const description = response.description;
  if (!description) throw new Error('an answer of a route has no description: give it one with described()');
  if (response instanceof z.ZodNull) return { type: 'null', description };
  const { schema, ...rest } = media({ schema: response }, names);
  const { description: _, ...json } = schema as JsonSchema;
  return { description, content: { 'application/json': { schema: json, ...rest } } };
}

/** The refusals of a route as answers, one per status: each `detail` with when it comes, and an example of each. */
function refusalResponses(sets: Refusals[]): Record<string, Response> {
  const byStatus = new Map<number, Record<string, string>>();
  for (const set of sets) {
    for (const [status, details] of Object.entries(set)) {
      byStatus.set(Number(status), { ...details, ...byStatus.get(Number(status)) });
    }
  }
  const responses = [...byStatus].sort(([a], [b]) => a - b);
  return Object.fromEntries(
    responses.map(([status, details]) => {
      const cases = Object.entries(details);
      const examples = cases.map(([detail, when]) => [detail, { summary: when, value: { detail } }]);
      const response: Response = {
        description: cases.map(([detail, when]) => `\`${detail}\`: ${when}`).join('\n\n'),
        ...(status === 429 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
        content: { 'application/json': { schema: errorBody, examples: Object.fromEntries(examples) } },
      };
      return [status, response];
    }),
  );
}

const RETRY_AFTER = {
  type: 'string',
  pattern: '^[1-9][0-9]*$',
  description: 'Whole seconds to wait before asking again.',
};

/** What every answer carries unless it says otherwise (routes that serve files and streams set their own). */
const CACHE_CONTROL = {
  type: 'string',
  const: SAFETY_HEADERS['cache-control'],
  description: 'Answers carry tokens and conversations: no cache keeps them.',
};

/**
 * A route's schema for @fastify/swagger: zod converted; the credential headers its security allows; its
 * refusals with those of the HTTP layer, of a path parameter and of a JSON body; `Cache-Control` on every
 * answer; `default` for what no route plans (a 500).
 */
function transform(schema: FastifySchema, names: Names, jsonBody: Refusals, everyRoute: Refusals) {
  const { body, querystring, params, headers, response = {}, refusals = [], ...rest } = schema;
  const transformed: Record<string, unknown> = { ...rest };
  const requirements = (rest.security ?? []).flatMap(Object.keys);
  const extraHeaders = {
    ...(requirements.length ? credentialHeaders : {}),
    ...(requirements.includes('ownerLogin') ? ownerLoginHeaders : {}),
  };
  const requestHeaders = headers instanceof z.ZodObject ? headers.extend(extraHeaders) : z.object(extraHeaders);
  for (const [part, value] of Object.entries({ body, querystring, params, headers: requestHeaders })) {
    if (isZod(value) && !(value instanceof z.ZodObject && Object.keys(value.shape).length === 0)) {
      transformed[part] = routeSchema(value, names);
    }
  }
  const readsJson = isZod(body) && !rest.consumes?.includes('multipart/form-data');
  const errors = refusalResponses([
    REQUEST_REFUSALS,
    everyRoute,
    params ? PATH_REFUSALS : {},
    readsJson ? jsonBody : {},
    ...refusals,
  ]);
  const answers = { ...(response as Record<string, Response>), ...errors };
  transformed.response = {
    ...Object.fromEntries(
      Object.entries(answers).map(([status, answer]) => {
        const converted = routeResponse(answer, names) as { headers?: JsonSchema };
        const named = Object.keys(converted.headers ?? {}).some((name) => name.toLowerCase() === 'cache-control');
        return [
          status,
          named ? converted : { ...converted, headers: { ...converted.headers, 'Cache-Control': CACHE_CONTROL } },
        ];
      }),
    ),
    default: {
      description: 'Anything else: 500 `internal server error`, a failure of the service (logged with its cause).',
      $ref: '#/components/schemas/Error',
    },
  };
  return transformed;
}

/** An operation of the document as @fastify/swagger writes it. */
type Operation = {
  requestBody?: { required?: boolean };
  responses: Record<string, { headers?: Record<string, { required?: boolean }> }>;
};

/**
 * What @fastify/swagger cannot say from a route: a body that may be left out (it marks every body required),
 * and that every header an answer names is sent.
 */
function finish(document: { paths?: Record<string, Record<string, Operation>> }, optionalBodies: Set<string>) {
  for (const [path, methods] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(methods)) {
      if (operation.requestBody && optionalBodies.has(`${method.toUpperCase()} ${path}`)) {
        operation.requestBody.required = false;
      }
      for (const answer of Object.values(operation.responses)) {
        for (const header of Object.values(answer.headers ?? {})) header.required = true;
      }
    }
  }
  return document;
}

/** What the document is made of besides the routes: the shapes they share, and the JSON parser's depth limit. */
export interface OpenApiOptions {
  schemas: Components;
  jsonDepth: number;
  /** What any route may answer besides its own refusals (the database away, routes/refusal-answers.ts). */
  everyRoute: Refusals;
}

const TAGS = [
  {
    name: 'workspaces',
    description:
      "A workspace's administration (spec 4.1): members, credits, visitors' session tokens, agents, the cap on " +
      "SMS codes. The workspace's API key; some routes also take its owner's login state.",
  },
  {
    name: 'SMS sign-in',
    description: 'A visitor signs in with a code sent by SMS and gets a session token. No credential.',
  },
  {
    name: 'conversations',
    description:
      "A user's conversations with agents: send a message, read the record stream, history, interrupt a " +
      'reply, hear it read aloud. A session token or a personal API key; a conversation is its owner’s alone.',
  },
  {
    name: 'training',
    description:
      'A training conversation with an agent during its development, one per key or owner: the workspace API ' +
      "key or the owner's login state of the agent's workspace.",
  },
  {
    name: 'operators',
    description:
      "A person of the workspace's staff takes conversations over from the agents (our extension): the queue of " +
      "conversations waiting for a person, take, write, release, close. An operator's session token, which the " +
      'workspace API key mints.',
  },
  { name: 'files', description: "Uploads, and the files agents write in a conversation's workspace." },
  { name: 'payments', description: 'The status of a payment order an agent asked for (`payment_gate`).' },
  { name: 'profile', description: "The caller's own credentials for the connectors agents use." },
  { name: 'reference', description: 'This document.' },
];

const DESCRIPTION = `The reference service of @svc/agent-sdk: every route of its service interface. The wire
contract, with what a schema cannot say (ordering, streaming, exact refusals), is
[docs/protocol.md](https://github.com/svc/agent-sdk/blob/main/docs/protocol.md).

- **Credentials** travel as \`Authorization: Bearer <token>\`, never in a URL; each operation names the kinds it
  takes. \`X-Act-As\` and (with the owner's login state) \`X-Login-Type\` may come with them.
- **Errors** answer \`{ "detail": string }\`; each operation lists its refusals by status, with every \`detail\`
  and when it comes. Validation messages read \`<part>/<field> <message>\` (zod's), e.g.
  \`body/amount Number must be greater than 0\`.
- **Every answer** carries \`Access-Control-Allow-Origin: *\`, \`X-Content-Type-Options: nosniff\` and
  \`Cache-Control: no-store\`, except the record streams (\`no-cache, no-transform\`) and an uploaded file
  (\`private, max-age=31536000, immutable\`).
- **Record streams** are Server-Sent Events (\`text/event-stream\`): each record is \`id: <record id>\`,
  \`event: record\`, \`data: <the record as JSON>\` (\`x-itemSchema\`, OpenAPI 3.2's \`itemSchema\`, names
  each event's shape). Resume after a record with \`lastEventId\` or \`Last-Event-ID\`.
- **Sending exactly once**: a send with an \`Idempotency-Key\` is stored once; a retry answers the first result.`;

/**
 * Registers the document and its rendered reference; before the routes, so that it sees each one. `schemas`
 * names the shapes the routes share (the record and its parts), each described once beside `Error`.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const components: Components = { Error: errorBody, ...options.schemas };
  const names: Names = new Map(Object.entries(components).map(([name, schema]) => [schema._def, name]));
  const jsonBody = jsonBodyRefusals(options.jsonDepth);
  const optionalBodies = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Workspace and conversation service',
        version: '2',
        description: DESCRIPTION,
        license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
        contact: { name: '@svc/agent-sdk', url: 'https://github.com/svc/agent-sdk/issues' },
      },
      servers: [{ url: '/', description: 'The service that serves this document.' }],
      tags: TAGS,
      components: {
        securitySchemes,
        schemas: componentSchemas(components) as Record<string, never>,
      },
    },
    transform: ({ schema, url, route }) => {
      if (!url.startsWith(`${API_PREFIX}/`) || !schema) return { schema: { ...schema, hide: true }, url };
      if (isZod(schema.body) && schema.body.isOptional()) {
        optionalBodies.add(`${route.method} ${url.replace(/:(\w+)/g, '{$1}')}`);
      }
      return { schema: transform(schema, names, jsonBody, options.everyRoute) as FastifySchema, url };
    },
    transformObject: (document) =>
      finish((document as { openapiObject: never }).openapiObject, optionalBodies) as never,
  });
  app.get(
    `${API_PREFIX}/openapi.json`,
    {
      schema: {
        tags: ['reference'],
        operationId: 'openapi',
        summary: 'This document',
        description: 'The OpenAPI 3.1 description of every route under `/api/v2`, as JSON; rendered at `/reference`.',
        security: security.none,
        response: { 200: described('This document.', z.record(z.unknown())) },
      },
    },
    async () => app.swagger(),
  );
  await app.register(swaggerUi, {
    routePrefix: REFERENCE_PATH,
    // As strict as the demo pages, but for style attributes, which Swagger UI (React) writes; no host but this one.
    staticCSP: {
      'default-src': "'self'",
      'script-src': "'self'",
      'script-src-attr': "'none'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data:",
      'font-src': "'self' data:",
      'object-src': "'none'",
      'base-uri': "'self'",
      'frame-ancestors': "'self'",
    },
    uiHooks: {
      // @fastify/swagger-ui 6.1 redirects `static/index.html?<query>` to itself, forever: send it home.
      onRequest: async (req, reply) => {
        if (req.routeOptions.url === `${REFERENCE_PATH}/static/index.html`) return reply.redirect(`${REFERENCE_PATH}/`);
      },
    },
  });
}
