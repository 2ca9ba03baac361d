import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { UploadedFile } from '@svc/agent-sdk/protocol';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { badRequest, HttpError, notFound, validationDetail } from '../http/errors.js';
import { contentDisposition, isInlineSafe, MEDIA_TYPE, mimeTypeOf } from '../http/media-types.js';
import { binary, described, documented } from '../http/openapi.js';
import { baseUrlOf } from '../http/public-url.js';
import type { AppContext } from '../services/context.js';
import { readConversationFile, resolveConversationFile } from '../services/conversation-files.js';
import { formatBytes, LIMITS } from '../services/limits.js';
import { checkUploadQuota, findUpload, newUploadFile, registerUpload } from '../services/uploads.js';
import { idParams } from './conversation-schemas.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const uploadFields = z.object({
  agentId: z.string().max(200).optional(),
  chatGroupId: z.string().max(200).optional(),
  filename: z.string().min(1).max(1000).optional(),
  contentType: z.string().regex(MEDIA_TYPE, 'must be a media type such as image/png').optional(),
});

const uploadedFile = described(
  'The stored file: send it in a message as a part (`file_url` or `image_url`: its `url`).',
  z.object({
    url: z.string().url().describe('A capability URL: readable without a credential.'),
    filename: z.string(),
    size: z.number().int().describe('Bytes.'),
    mimeType: z.string(),
    provider: z.string().describe('`local`: this service stores it.'),
    nasPath: z.string().optional(),
    agentPath: z.string().optional(),
  }),
  {
    url: 'http://127.0.0.1:8787/api/v2/files/f_Hx5Kq9Wm2Zr7Tn4Lb8Vc1P/notes.txt',
    filename: 'notes.txt',
    size: 1234,
    mimeType: 'text/plain',
    provider: 'local',
  },
);

const fileQuery = z.object({
  path: documented(
    z
      .string()
      .refine((path) => Buffer.byteLength(path) <= LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes`)
      .refine(
        (path) => path.split('/').every((name) => Buffer.byteLength(name) <= LIMITS.pathComponentBytes),
        `must not hold a name over ${LIMITS.pathComponentBytes} bytes`,
      ),
    {
      maxLength: LIMITS.pathBytes,
      description:
        `A path inside the conversation's folder: at most ${LIMITS.pathBytes} bytes of UTF-8, no name of it ` +
        `over ${LIMITS.pathComponentBytes}.`,
    },
  ),
});

/** What the file routes refuse of a conversation file, besides the conversation (readConversationFile adds a 413). */
const FILE_REFUSALS = documentedRefusals({
  path_escapes:
    'An absolute path, a `..` segment (also percent-encoded), a backslash, a NUL, or a symlink out of the folder.',
  path_required: '`path` is empty.',
  file_not_found: 'No file at `path` (or a folder).',
});

const QUERY_PATH_REFUSALS = {
  400: {
    [`querystring/path must not hold a name over ${LIMITS.pathComponentBytes} bytes`]:
      'A name of the path is longer than file systems take.',
    'querystring/path Required': 'No `path`.',
  },
};

/** A served file can never run as a page of our origin, even if a browser decides to render it. */
const SANDBOX_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
/** An uploaded file never changes: its capability URL may be cached by its reader, never by a shared cache. */
const UPLOAD_CACHE = 'private, max-age=31536000, immutable';

/** The headers of a file the service serves. */
const SERVED_FILE_HEADERS = {
  'Content-Disposition': {
    type: 'string',
    pattern: "^(inline|attachment); filename\\*=UTF-8''",
    description: 'The file name (RFC 6266, 8187); `inline` only for types a browser shows safely.',
  },
  'Content-Security-Policy': {
    type: 'string',
    const: SANDBOX_CSP,
    description: 'The file never runs as a page of this origin.',
  },
};

/** Bytes of a file, with their media type. */
const bytes = (description: string, headers: Record<string, unknown>) => ({
  200: { description, headers, content: { '*/*': { schema: binary(description) } } },
});

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
        operationId: 'upload',
        summary: 'Upload a file',
        description:
          'Stores a file sent as `multipart/form-data` (the file in the field `file`) and answers its capability ' +
          'URL, to send in a message (an operator too: a person of the staff attaches files this way). The file ' +
          'is streamed to disk and stops at its limit; an upload no record refers to 24 hours later is deleted.',
        security: security.userOrOperator,
        consumes: ['multipart/form-data'],
        body: uploadFields.extend({ file: binary('The file, with its filename.') }),
        response: { 200: uploadedFile },
        refusals: [
          USER_REFUSALS,
          {
            400: {
              'multipart field "file" is missing': 'The form has no `file`.',
              'request body is not valid multipart/form-data': 'No boundary, or a truncated part.',
              'body/contentType must be a media type such as image/png': 'An option is invalid (zod words each).',
              'the Host header is not a valid host':
                'Without `--public-url`, the URL is made from `Host` when it names the service (else from its own address): it must be a host name or address.',
            },
            413: { [fileTooLarge(ctx.maxUploadBytes)]: 'The file is over the limit.' },
            415: { 'Content-Type must be multipart/form-data': 'A body of another type.' },
          },
          documentedRefusals(
            { upload_quota: 'The caller uploaded this much in the last hour.' },
            ctx.quotas.uploadBytesPerHour,
          ),
        ],
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
        operationId: 'uploadedFile',
        summary: 'Read an uploaded file',
        description:
          'The capability URL an upload answers: the unguessable id is the credential, so an `<img>` or `<audio>` ' +
          'can load it.',
        security: security.none,
        params: z.object({ fileId: z.string(), filename: z.string() }),
        response: bytes('The uploaded bytes, with their media type.', {
          ...SERVED_FILE_HEADERS,
          'Cache-Control': { type: 'string', const: UPLOAD_CACHE, description: 'The file never changes.' },
        }),
        refusals: [{ 404: { 'file not found': 'No such upload, or it was deleted.' } }],
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
          'cache-control': UPLOAD_CACHE,
        })
        .send(createReadStream(upload.path));
    },
  );

  app.get(
    '/conversations/:id/files/read',
    {
      schema: {
        tags,
        operationId: 'readConversationFile',
        summary: "Read a file of the conversation's workspace",
        description:
          'A file an agent wrote (an `attachment` names its `workspacePath`), as JSON: UTF-8 text for text types ' +
          'that decode cleanly, else base64.',
        security: security.user,
        params: idParams,
        querystring: fileQuery,
        response: {
          200: described(
            'The content of the file.',
            z.object({ content: z.string(), encoding: z.enum(['utf-8', 'base64']), mimeType: z.string() }),
            { content: 'hello', encoding: 'utf-8', mimeType: 'text/plain' },
          ),
        },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          FILE_REFUSALS,
          QUERY_PATH_REFUSALS,
          documentedRefusals(
            { file_too_large_to_read: 'The file is over the upload limit: download it.' },
            ctx.maxUploadBytes,
          ),
        ],
      },
    },
    async (req) => readConversationFile(ctx, await ownedFile(req.caller, req.params.id, req.query.path)),
  );

  app.get(
    '/conversations/:id/files/download',
    {
      schema: {
        tags,
        operationId: 'downloadConversationFile',
        summary: "Download a file of the conversation's workspace",
        description: 'The bytes of a file an agent wrote, as an attachment with its media type.',
        security: security.user,
        params: idParams,
        querystring: fileQuery,
        response: bytes('The file, as an attachment.', SERVED_FILE_HEADERS),
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS, FILE_REFUSALS, QUERY_PATH_REFUSALS],
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

/** The refusal of an upload over `limit` bytes. */
const fileTooLarge = (limit: number) => `file too large (limit ${formatBytes(limit)})`;

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
      throw new HttpError(413, fileTooLarge(limit));
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
