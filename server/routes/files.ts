import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UploadedFile } from '../../src/client/types.js';
import { requireUser } from '../auth.js';
import type { AppContext } from '../context.js';
import { baseUrlOf } from '../conversations/requests.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { conversationOwnedBy } from '../store/conversations.js';
import {
  contentDisposition,
  findUpload,
  formatByteLimit,
  isInlineSafe,
  MEDIA_TYPE,
  mimeTypeOf,
  readConversationFile,
  resolveConversationFile,
  storeUpload,
} from '../store/files.js';
import { parse } from '../validation.js';

const uploadFields = z.object({
  agentId: z.string().max(200).optional(),
  chatGroupId: z.string().max(200).optional(),
  filename: z.string().min(1).max(1000).optional(),
  contentType: z.string().regex(MEDIA_TYPE, 'must be a media type such as image/png').optional(),
});

const fileQuery = z.object({ path: z.string() });

/** A served file can never run as a page of our origin, even if a browser decides to render it. */
const SANDBOX_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export default async function filesRoutes(app: FastifyInstance, ctx: AppContext) {
  // Multipart parsing is only needed here, so the plugin lives in this scope alone.
  await app.register(multipart, {
    limits: { fileSize: ctx.maxUploadBytes, files: 1, fields: 10, fieldSize: 4096 },
  });

  app.post(
    '/files/upload',
    {
      // Credentials first, then the body's type, before a single byte of the body is read.
      onRequest: async (req) => {
        requireUser(ctx.db, req);
        if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
          throw new HttpError(415, 'Content-Type must be multipart/form-data');
        }
      },
    },
    async (req): Promise<UploadedFile> => {
      const { userId } = requireUser(ctx.db, req);
      const { file, fields } = await readUpload(req, ctx.maxUploadBytes);
      const options = parse(uploadFields, fields);
      if (!file) throw badRequest('multipart field "file" is missing');
      return storeUpload(ctx, {
        ownerId: userId,
        filename: options.filename ?? file.filename,
        mimeType: options.contentType ?? file.mimetype,
        data: file.data,
        baseUrl: baseUrlOf(req),
        agentId: options.agentId,
        chatGroupId: options.chatGroupId,
      });
    },
  );

  // The capability URL: the unguessable id is the credential, so an <img> or <audio> can load it.
  app.get<{ Params: { fileId: string; filename: string } }>('/files/:fileId/:filename', async (req, reply) => {
    const upload = findUpload(ctx, req.params.fileId);
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
  });

  app.get<{ Params: { id: string } }>('/conversations/:id/files/read', async (req) => {
    return readConversationFile(ctx, ownedFile(req));
  });

  app.get<{ Params: { id: string } }>('/conversations/:id/files/download', async (req, reply) => {
    const path = ownedFile(req);
    return reply
      .headers({
        'content-type': mimeTypeOf(path),
        'content-disposition': contentDisposition(basename(path)),
        'content-security-policy': SANDBOX_CSP,
        'x-content-type-options': 'nosniff',
      })
      .send(createReadStream(path));
  });

  /** The real path of `?path=` in a conversation of the caller; 404 for anyone else's conversation. */
  function ownedFile(req: FastifyRequest<{ Params: { id: string } }>): string {
    const { userId } = requireUser(ctx.db, req);
    const { path } = parse(fileQuery, req.query, 'querystring');
    if (!conversationOwnedBy(ctx, req.params.id, userId)) throw notFound('conversation not found');
    return resolveConversationFile(ctx, req.params.id, path);
  }
}

interface UploadPart {
  data: Buffer;
  filename: string;
  mimetype: string;
}

/** The `file` part and the text fields of an upload, whatever their order in the body. */
async function readUpload(
  req: FastifyRequest,
  limit: number,
): Promise<{ file?: UploadPart; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: UploadPart | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      } else if (part.fieldname === 'file') {
        file = { data: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype };
      } else {
        part.file.resume();
      }
    }
  } catch (err) {
    if (err instanceof req.server.multipartErrors.RequestFileTooLargeError) {
      throw new HttpError(413, `file too large (limit ${formatByteLimit(limit)})`);
    }
    // Reading parts only parses the request: anything else that fails here is a malformed body (no
    // boundary, a truncated part), which the parser reports without a status.
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status < 500) throw err;
    throw badRequest('request body is not valid multipart/form-data');
  }
  return { file, fields };
}
