import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MessageAudioResult } from '@svc/agent-sdk/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { badRequest, notFound, type Refusals } from '../http/errors.js';
import { binary, described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { type SpeechAudio, speakableText, wavAudio } from '../services/speech.js';
import { agentMessageText } from '../store/history-rows.js';
import { randomId } from '../store/ids.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const params = z.object({ agentId: z.string(), messageId: z.string() });
const body = described('The conversation of the message.', z.object({ conversationId: z.string().min(1).max(200) }), {
  conversationId: 'c_3kqZ0vJ9bX2m4Lr8Tn6wQg',
});

/** What both audio routes read of a request. */
type AudioRequest = Pick<FastifyRequest, 'caller'> & { params: z.infer<typeof params>; body: z.infer<typeof body> };

const messageAudioResult = described(
  'The reply read aloud, as base64 in JSON.',
  z.object({
    messageId: z.string(),
    conversationId: z.string(),
    mimeType: z.string(),
    size: z.number().int().describe('Bytes.'),
    durationMs: z.number(),
    data: z.string().describe('The audio bytes, base64.'),
    cached: z.boolean().describe('Made before, and kept.'),
  }),
  {
    messageId: 'm_Q2w9Er4Ty7Ui1Op3As6DfA',
    conversationId: 'c_3kqZ0vJ9bX2m4Lr8Tn6wQg',
    mimeType: 'audio/wav',
    size: 48210,
    durationMs: 2310,
    data: 'UklGRkq8AABXQVZFZm10IBAAAAABAAEAIlYAAESsAAACABAAZGF0YSa8AAA…',
    cached: false,
  },
);

/** What both routes refuse. */
const AUDIO_REFUSALS: Refusals = {
  400: {
    'message has no text to read aloud': 'The message holds no text (only images, a card…).',
    'body/conversationId Required': 'No `conversationId`.',
  },
  404: { 'message not found': 'No message `{messageId}` of agent `{agentId}` in the conversation.' },
  ...documentedRefusals({
    speech_unavailable: 'The service has no speech synthesizer (espeak-ng).',
    speech_too_slow: 'The synthesizer did not finish within a minute.',
  }),
};

/** messageAudio: an agent reply read aloud, as JSON with base64 bytes or as the WAV itself. */
export default function audioRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  const schema = {
    tags: ['conversations'],
    security: security.user,
    params,
    body,
    refusals: [USER_REFUSALS, CONVERSATION_REFUSALS, AUDIO_REFUSALS],
  };
  const description =
    "An agent's reply (`{messageId}`, the `raw.message.id` of its `assistant` record) read aloud by espeak-ng, " +
    'made once per message and kept.';

  app.post(
    '/agents/:agentId/messages/:messageId/audio',
    {
      schema: {
        ...schema,
        operationId: 'messageAudio',
        summary: 'Hear a reply, as JSON',
        description,
        response: { 200: messageAudioResult },
      },
    },
    async (req, reply) => {
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
    },
  );

  app.post(
    '/agents/:agentId/messages/:messageId/audio/stream',
    {
      schema: {
        ...schema,
        operationId: 'messageAudioStream',
        summary: 'Hear a reply, as a WAV',
        description,
        response: {
          200: { description: 'The reply read aloud.', content: { 'audio/wav': { schema: binary('The WAV.') } } },
        },
      },
    },
    async (req, reply) => {
      const { audio } = await messageAudio(req, reply);
      return reply.header('content-type', audio.mimeType).send(audio.data);
    },
  );

  async function messageAudio(req: AudioRequest, reply: FastifyReply) {
    const { agentId, messageId } = req.params;
    const conversationId = (await ownConversation(ctx.db, req.caller, req.body.conversationId)).id;
    const text = await agentMessageText(ctx.db, conversationId, agentId, messageId);
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
