import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { ignoreOverride, zodToJsonSchema } from 'zod-to-json-schema';
import { security, securitySchemes } from './auth.js';
import { errorBody } from './errors.js';

/*
 * The OpenAPI 3.1 description of every route under /api/v2, generated from the routes' own zod schemas
 * (the ones that validate requests and type handlers), never written by hand. Served at
 * `GET /api/v2/openapi.json`, rendered at `/reference`.
 */

export const API_PREFIX = '/api/v2';
const REFERENCE_PATH = '/reference';

/** Shapes named once in `components.schemas` and referred to wherever a route uses them. */
type Components = Record<string, z.ZodTypeAny>;

const BINARY = new WeakSet<z.ZodTypeDef>();

/** Bytes: a file part of a multipart form, or a body that is not JSON. Documented only, never validated. */
export function binary(description: string): z.ZodType<unknown> {
  const schema = z.custom((value) => value !== undefined).describe(description);
  BINARY.add(schema._def);
  return schema;
}

/**
 * A zod schema as a JSON Schema of OpenAPI 3.1, with `$ref`s to the shared components (they come out
 * under `schemas`). The type provider's own transform writes OpenAPI 3.0 (`nullable`), and the converter's
 * 2019-09 target the boolean `exclusiveMinimum` of draft 4; its draft-07 output is valid JSON Schema 2020-12.
 */
function jsonSchema(
  schema: z.ZodTypeAny,
  components: Components,
): { schemas?: Record<string, unknown> } & Record<string, unknown> {
  const { $schema: _, ...json } = zodToJsonSchema(schema, {
    target: 'jsonSchema7',
    // zod drops the fields an object does not name rather than refusing them: say nothing of them.
    removeAdditionalStrategy: 'strict',
    allowedAdditionalProperties: undefined,
    basePath: ['#', 'components'],
    definitionPath: 'schemas',
    definitions: components,
    override: (def) =>
      BINARY.has(def)
        ? { type: 'string', contentMediaType: 'application/octet-stream', description: def.description }
        : ignoreOverride,
  });
  return json;
}

const isZod = (value: unknown): value is z.ZodTypeAny => value instanceof z.ZodType;

/** One schema of a route, without the components every conversion repeats. */
function routeSchema(schema: z.ZodTypeAny, components: Components) {
  const { schemas: _, ...json } = jsonSchema(schema, components);
  return json;
}

type Response = z.ZodTypeAny | { description?: string; content: Record<string, { schema: z.ZodTypeAny }> };

function routeResponse(response: Response, components: Components) {
  if (isZod(response)) return routeSchema(response, components);
  const content = Object.entries(response.content).map(([type, { schema }]) => [
    type,
    { schema: routeSchema(schema, components) },
  ]);
  return { description: response.description, content: Object.fromEntries(content) };
}

/** A route's schema for @fastify/swagger: zod converted, every error documented as `{ detail }`. */
function transform({ schema, url }: { schema: FastifySchema; url: string }, components: Components) {
  if (!url.startsWith(`${API_PREFIX}/`) || !schema) return { schema: { ...schema, hide: true }, url };
  const { body, querystring, params, headers, response = {}, ...rest } = schema as Record<string, unknown>;
  const transformed: Record<string, unknown> = { ...rest, operationId: rest.summary };
  for (const [part, value] of Object.entries({ body, querystring, params, headers })) {
    if (isZod(value)) transformed[part] = routeSchema(value, components);
  }
  transformed.response = {
    ...Object.fromEntries(
      Object.entries(response as Record<string, Response>).map(([s, r]) => [s, routeResponse(r, components)]),
    ),
    default: { description: 'An error.', $ref: '#/components/schemas/Error' },
  };
  return { schema: transformed, url };
}

/**
 * Registers the document and its rendered reference; before the routes, so that it sees each one. `shared`
 * names the shapes the routes share (the record and its parts), each described once beside `Error`.
 */
export async function registerOpenApi(app: FastifyInstance, shared: Components): Promise<void> {
  const components: Components = { Error: errorBody, ...shared };
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Workspace and conversation service',
        version: '2',
        description:
          'The reference service of @svc/agent-sdk. Every credential is a bearer token; every error body is ' +
          '`{ "detail": string }`. Record streams are Server-Sent Events. See docs/protocol.md.',
      },
      components: {
        securitySchemes,
        schemas: jsonSchema(z.null(), components).schemas as Record<string, never>,
      },
    },
    transform: (route) => transform(route, components),
  });
  app.get(
    `${API_PREFIX}/openapi.json`,
    {
      schema: {
        tags: ['reference'],
        summary: 'openapi',
        security: security.none,
        response: { 200: z.record(z.unknown()).describe('This document.') },
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
