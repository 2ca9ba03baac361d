import type { MessagePart } from '@svc/agent-sdk/protocol';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { StoredFile } from '../types.js';

/** What attachments one request may carry to the model, newest first; older ones are named instead. */
export interface AttachmentBudget {
  images: number;
  textBytes: number;
}

export const attachmentBudget = (): AttachmentBudget => ({ images: 8, textBytes: 128 * 1024 });

/** A text file larger than this is named, not inlined. */
const MAX_INLINE_TEXT = 32 * 1024;
/** An uploaded image larger than this is named, not sent. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|x-yaml|yaml|csv|x-ndjson|javascript|typescript|sql)\b)|\+(json|xml)\b/;

/**
 * A user message's attachments as content parts: images as image parts (an upload of this service as a
 * `data:` URL, since the endpoint may not reach this service; any other URL as is), small text files inline,
 * everything else by name. `read` finds an upload of this service by its URL.
 */
export function attachmentParts(
  parts: MessagePart[],
  read: (url: string) => StoredFile | undefined,
  budget: AttachmentBudget,
): ChatCompletionContentPart[] {
  return parts.map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const url = part.type === 'image_url' ? part.image_url.url : part.file.file_url;
    const file = read(url);
    const name = part.type === 'file' ? part.file.filename : (file?.filename ?? 'image');
    const isImage = part.type === 'image_url' || file?.mimeType.startsWith('image/');
    if (isImage) {
      if (budget.images <= 0) return named(name, 'image');
      if (file && file.size > MAX_IMAGE_BYTES) return named(name, `image of ${file.size} bytes`);
      if (!file && !/^https?:/i.test(url)) return named(name, 'image');
      budget.images--;
      const src = file ? `data:${file.mimeType};base64,${file.read().toString('base64')}` : url;
      return { type: 'image_url', image_url: { url: src } };
    }
    if (file && TEXT_TYPES.test(file.mimeType) && file.size <= Math.min(MAX_INLINE_TEXT, budget.textBytes)) {
      budget.textBytes -= file.size;
      return { type: 'text', text: `File ${name}:\n\`\`\`\n${file.read().toString('utf8')}\n\`\`\`` };
    }
    return named(name, file ? `${file.mimeType}, ${file.size} bytes` : 'file');
  });
}

const named = (name: string, what: string): ChatCompletionContentPart => ({
  type: 'text',
  text: `[The visitor attached ${name} (${what}); its content is not shown to you.]`,
});
