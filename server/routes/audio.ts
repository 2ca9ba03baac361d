import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { MessageAudioResult } from '../../src/client/types.js';
import { requireUser } from '../auth.js';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { randomId } from '../ids.js';
import { type SpeechAudio, speakableText, wavAudio } from '../speech.js';
import { conversationOwnedBy, findAgentMessageText } from '../store/conversations.js';
import { parse } from '../validation.js';

type AudioRequest = FastifyRequest<{ Params: { agentId: string; messageId: string } }>;

const body = z.object({ conversationId: z.string().min(1).max(200) });

/** messageAudio: an agent reply read aloud, as JSON with base64 bytes or as the WAV itself. */
export default function audioRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post('/agents/:agentId/messages/:messageId/audio', async (req: AudioRequest, reply) => {
    const { conversationId, messageId, audio, cached } = await messageAudio(req, reply);
    const result: MessageAudioResult = {
      messageId,
      conversationId,
      mimeType: audio.mimeType,
      size: audio.data.length,
      durationMs: audio.durationMs,
      data: audio.data.toString('base64'),
      cached,
    };
    return result;
  });

  app.post('/agents/:agentId/messages/:messageId/audio/stream', async (req: AudioRequest, reply) => {
    const { audio } = await messageAudio(req, reply);
    return reply.header('content-type', audio.mimeType).send(audio.data);
  });

  async function messageAudio(req: AudioRequest, reply: FastifyReply) {
    const { userId } = requireUser(ctx.db, req);
    const { conversationId } = parse(body, req.body);
    const { agentId, messageId } = req.params;
    if (!conversationOwnedBy(ctx, conversationId, userId)) throw notFound('conversation not found');
    const text = findAgentMessageText(ctx, conversationId, agentId, messageId);
    if (text === undefined) throw notFound('message not found');

    const file = cacheFile(ctx, conversationId, messageId);
    const hit = readCached(file);
    if (hit) return { conversationId, messageId, audio: hit, cached: true };

    const spoken = speakableText(text);
    if (spoken === '') throw badRequest('message has no text to read aloud');
    // A caller that hangs up stops the synthesis.
    const abort = new AbortController();
    reply.raw.on('close', () => abort.abort());
    const audio = await ctx.speech.synthesize(spoken, { signal: abort.signal });
    writeCached(file, audio.data);
    return { conversationId, messageId, audio, cached: false };
  }
}

/** Audio is cached on disk per (conversation, message): a reply never changes once it is complete. */
function cacheFile(ctx: AppContext, conversationId: string, messageId: string): string {
  const name = createHash('sha256').update(`${conversationId}\0${messageId}`).digest('hex');
  return join(ctx.filesDir, 'audio', `${name}.wav`);
}

function readCached(file: string): SpeechAudio | undefined {
  try {
    return wavAudio(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Written under a temporary name and renamed, so a concurrent reader never sees half a file. */
function writeCached(file: string, data: Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${randomId('tmp', 6)}`;
  writeFileSync(temporary, data);
  renameSync(temporary, file);
}
