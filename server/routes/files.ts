import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { UploadedFile } from '@svc/agent-sdk/protocol';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ownConversation, security, userHook } from '../http/auth.js';
import { badRequest, HttpError, notFound, validationDetail } from '../http/errors.js';
import { contentDisposition, isInlineSafe, MEDIA_TYPE, mimeTypeOf } from '../http/media-types.js';
import { binary } from '../http/openapi.js';
import { baseUrlOf } from '../http/public-url.js';
import type { AppContext } from '../services/context.js';
import { readConversationFile, resolveConversationFile } from '../services/conversation-files.js';
import { formatBytes, LIMITS } from '../services/limits.js';
import { checkUploadQuota, findUpload, newUploadFile, registerUpload } from '../services/uploads.js';
import { idParams } from './conversation-schemas.js';
import type { ZodApp } from './route-module.js';

const uploadFields = z.object({
  agentId: z.string().max(200).optional(),
  chatGroupId: z.string().max(200).optional(),
  filename: z.string().min(1).max(1000).optional(),
  contentType: z.string().regex(MEDIA_TYPE, 'must be a media type such as image/png').optional(),
});

const uploadedFile = z.object({
  url: z.string().describe('A capability URL: readable without a credential.'),
  filename: z.string(),
  size: z.number(),
  mimeType: z.string(),
  provider: z.string(),
  nasPath: z.string().optional(),
  agentPath: z.string().optional(),
});

const fileQuery = z.object({
  path: z
    .string()
    .refine((path) => Buffer.byteLength(path) <= LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes`)
    .refine(
      (path) => path.split('/').every((name) => Buffer.byteLength(name) <= LIMITS.pathComponentBytes),
      `must not hold a name over ${LIMITS.pathComponentBytes} bytes`,
    )
    .describe("A path inside the conversation's folder."),
});

const bytes = (description: string) => ({ 200: { description, content: { '*/*': { schema: binary(description) } } } });

/** A served file can never run as a page of our origin, even if a browser decides to render it. */
const SANDBOX_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export default async function filesRoutes(app: ZodApp, ctx: AppContext) {
  // Credentials first, before a single byte of a body is read.
  app.addHook('onRequest', userHook(ctx.db));
  // Multipart parsing is only needed here, so the plugin lives in this scope alone.
  await app.register(multipart, {
    limits: { fileSize: ctx.maxUploadBytes, files: 1, fields: 10, fieldSize: 4096 },
  });
  const tags = ['files'];

  app.post(
    '/files/upload',
    {
      schema: {
        tags,
        summary: 'upload',
        security: security.user,
        consumes: ['multipart/form-data'],
        body: uploadFields.extend({ file: binary('The file, with its filename.') }),
        response: { 200: uploadedFile },
      },
      // The form is read part by part below, so a file over the limit stops at the limit: the schema
      // above documents it, and its fields are validated once read.
      validatorCompiler: () => (value) => ({ value }),
      onRequest: async (req) => {
        if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
          throw new HttpError(415, 'Content-Type must be multipart/form-data');
        }
      },
    },
    async (req): Promise<UploadedFile> => {
      await checkUploadQuota(ctx, req.caller.userId);
      const target = newUploadFile(ctx);
      try {
        const { file, fields } = await readUpload(req, target.path, ctx.maxUploadBytes);
        const options = uploadFields.safeParse(fields);
        if (!options.success) throw badRequest(validationDetail('body', options.error.issues));
        if (!file) throw badRequest('multipart field "file" is missing');
        const upload = {
          id: target.id,
          ownerId: req.caller.userId,
          filename: options.data.filename ?? file.filename,
          mimeType: options.data.contentType ?? file.mimetype,
          size: file.size,
          baseUrl: baseUrlOf(ctx, req),
          agentId: options.data.agentId,
          chatGroupId: options.data.chatGroupId,
        };
        return registerUpload(ctx, upload, { quota: true });
      } catch (err) {
        rmSync(target.path, { force: true });
        throw err;
      }
    },
  );

  // The capability URL: the unguessable id is the credential, so an <img> or <audio> can load it.
  app.get(
    '/files/:fileId/:filename',
    {
      schema: {
        tags,
        summary: 'uploadedFile',
        security: security.none,
        params: z.object({ fileId: z.string(), filename: z.string() }),
        response: bytes('The uploaded bytes, with their media type.'),
      },
    },
    async (req, reply) => {
      const upload = await findUpload(ctx, req.params.fileId);
      if (!upload) throw notFound('file not found');
      return reply
        .headers({
          'content-type': upload.mimeType,
          'content-length': upload.size,
          'content-disposition': contentDisposition(
            upload.filename,
            isInlineSafe(upload.mimeType) ? 'inline' : 'attachment',
          ),
          'content-security-policy': SANDBOX_CSP,
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, max-age=31536000, immutable',
        })
        .send(createReadStream(upload.path));
    },
  );

  app.get(
    '/conversations/:id/files/read',
    {
      schema: {
        tags,
        summary: 'readConversationFile',
        security: security.user,
        params: idParams,
        querystring: fileQuery,
        response: {
          200: z.object({ content: z.string(), encoding: z.enum(['utf-8', 'base64']), mimeType: z.string() }),
        },
      },
    },
    async (req) => readConversationFile(ctx, await ownedFile(req.caller, req.params.id, req.query.path)),
  );

  app.get(
    '/conversations/:id/files/download',
    {
      schema: {
        tags,
        summary: 'downloadConversationFile',
        security: security.user,
        params: idParams,
        querystring: fileQuery,
        response: bytes('The file, as an attachment.'),
      },
    },
    async (req, reply) => {
      const path = await ownedFile(req.caller, req.params.id, req.query.path);
      return reply
        .headers({
          'content-type': mimeTypeOf(path),
          'content-disposition': contentDisposition(basename(path)),
          'content-security-policy': SANDBOX_CSP,
          'x-content-type-options': 'nosniff',
        })
        .send(createReadStream(path));
    },
  );

  /** The real path of `path` in a conversation of the caller. */
  async function ownedFile(caller: FastifyRequest['caller'], conversationId: string, path: string): Promise<string> {
    return resolveConversationFile(ctx, (await ownConversation(ctx.db, caller, conversationId)).id, path);
  }
}

interface UploadPart {
  size: number;
  filename: string;
  mimetype: string;
}

/**
 * The text fields of an upload, whatever their order in the body, and its `file` part, streamed to `path` as
 * it arrives (so a visitor's upload never sits in memory), stopping at `limit` bytes with 413.
 */
async function readUpload(
  req: FastifyRequest,
  path: string,
  limit: number,
): Promise<{ file?: UploadPart; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: UploadPart | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      } else if (part.fieldname === 'file' && !file) {
        const out = createWriteStream(path);
        await pipeline(part.file, out);
        if (part.file.truncated) throw new req.server.multipartErrors.RequestFileTooLargeError();
        file = { size: out.bytesWritten, filename: part.filename, mimetype: part.mimetype };
      } else {
        part.file.resume();
      }
    }
  } catch (err) {
    if (err instanceof req.server.multipartErrors.RequestFileTooLargeError) {
      throw new HttpError(413, `file too large (limit ${formatBytes(limit)})`);
    }
    // Writing the file failed: the service's fault, not the body's.
    if ((err as NodeJS.ErrnoException).syscall) throw err;
    // Reading parts only parses the request: anything else that fails here is a malformed body (no
    // boundary, a truncated part), which the parser reports without a status.
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status < 500) throw err;
    throw badRequest('request body is not valid multipart/form-data');
  }
  return { file, fields };
}
