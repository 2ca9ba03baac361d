import { spawn } from 'node:child_process';
import { marked, type Token, type Tokens } from 'marked';
import { Refusal } from './refusal.js';

/** Spoken audio of a text. */
export interface SpeechAudio {
  data: Buffer;
  mimeType: 'audio/wav';
  durationMs: number;
}

/**
 * Turns text into speech; the reference service uses espeak-ng, a deployment may plug in another engine. An
 * engine that cannot speak now throws a Refusal (`speech_unavailable`, `speech_too_slow`).
 */
export interface SpeechSynthesizer {
  synthesize(text: string, options: { signal?: AbortSignal }): Promise<SpeechAudio>;
}

export interface EspeakOptions {
  /** The espeak-ng executable; found on PATH unless given. */
  binary?: string;
  /** A slow or stuck synthesis is killed after this long. */
  timeoutMs?: number;
}

/**
 * espeak-ng writing a WAV file to stdout. The text goes in on stdin, never on the command line, so it can
 * neither be read from the process list nor be taken for an option.
 */
export function espeakSynthesizer({ binary = 'espeak-ng', timeoutMs = 60_000 }: EspeakOptions = {}): SpeechSynthesizer {
  return {
    synthesize(text, { signal }) {
      const stop = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      // Chinese text read with the English voice comes out as a spelled-out list of characters.
      const voice = /\p{Script=Han}/u.test(text) ? 'cmn' : 'en';
      return new Promise((resolve, reject) => {
        const child = spawn(binary, ['--stdout', '--stdin', '-b', '1', '-v', voice], {
          stdio: ['pipe', 'pipe', 'ignore'],
          signal: stop,
        });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
        // A child that dies early makes the stdin write fail; the exit handler reports it.
        child.stdin.on('error', () => {});
        child.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT' || err.code === 'EACCES') reject(new Refusal('speech_unavailable'));
          else if (stop.aborted && !signal?.aborted) reject(new Refusal('speech_too_slow'));
          else reject(err);
        });
        child.on('close', (code) => {
          if (code !== 0) return reject(new Error(`espeak-ng exited with code ${code}`));
          try {
            resolve(wavAudio(Buffer.concat(chunks)));
          } catch (err) {
            reject(err);
          }
        });
        child.stdin.end(text);
      });
    },
  };
}

/**
 * espeak-ng cannot seek back on a pipe, so its header announces an unknown (maximal) length. Browsers
 * want the real one: the RIFF and data sizes are rewritten, and the duration is read from the header.
 */
export function wavAudio(data: Buffer): SpeechAudio {
  if (data.length < 12 || data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('speech synthesizer did not produce a WAV file');
  }
  let byteRate = 0;
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString('ascii', offset, offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') byteRate = data.readUInt32LE(body + 8);
    if (id === 'data') {
      const size = data.length - body;
      data.writeUInt32LE(size, offset + 4);
      data.writeUInt32LE(data.length - 8, 4);
      if (!byteRate) throw new Error('WAV file has no format chunk');
      return { data, mimeType: 'audio/wav', durationMs: Math.round((size / byteRate) * 1000) };
    }
    offset = body + data.readUInt32LE(offset + 4);
  }
  throw new Error('WAV file has no data chunk');
}

/** Speaking stops near this many characters, at the end of a sentence. */
export const MAX_SPOKEN_CHARS = 4000;

/** The words of a markdown reply, as a listener should hear them: no markup, no code blocks, no URLs. */
export function speakableText(markdown: string): string {
  const text = blockText(marked.lexer(markdown))
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return truncateAtSentence(text, MAX_SPOKEN_CHARS);
}

function blockText(tokens: Token[]): string {
  return tokens.map((token) => `${tokenText(token)}\n`).join('');
}

function tokenText(token: Token): string {
  switch (token.type) {
    case 'code':
    case 'html':
    case 'hr':
    case 'space':
    case 'def':
      return '';
    case 'list':
      return blockText((token as Tokens.List).items);
    case 'table': {
      const table = token as Tokens.Table;
      const rows = [table.header, ...table.rows];
      return rows.map((row) => row.map((cell) => inlineText(cell.tokens)).join(', ')).join('.\n');
    }
    case 'blockquote':
    case 'list_item':
      return blockText((token as Tokens.Blockquote).tokens);
    case 'br':
      return '\n';
    case 'image':
      return (token as Tokens.Image).text;
    case 'codespan':
    case 'escape':
      return (token as Tokens.Codespan).text;
    default: {
      const nested = (token as { tokens?: Token[] }).tokens;
      if (nested) return inlineText(nested);
      return 'text' in token && typeof token.text === 'string' ? token.text : '';
    }
  }
}

function inlineText(tokens: Token[]): string {
  return tokens.map(tokenText).join('');
}

/** Cuts `text` at the last sentence end before `limit` (or, failing that, the last space). */
function truncateAtSentence(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const sentenceEnds = [...head.matchAll(/[.!?。！？](?=\s|$)/gu)];
  const lastSentence = sentenceEnds.at(-1);
  if (lastSentence?.index !== undefined && lastSentence.index > limit * 0.5)
    return head.slice(0, lastSentence.index + 1);
  const lastSpace = head.lastIndexOf(' ');
  return lastSpace > limit * 0.5 ? head.slice(0, lastSpace) : head;
}
