import { BIDI_CONTROLS } from '../store/shown-text.js';

/**
 * The one rule for a file name a visitor is shown or saves (an upload's, an agent's attachment's, a
 * download's `Content-Disposition`): the last path segment, without control characters and with every
 * bidirectional control replaced, at most 255 characters; `file` when nothing is left.
 */
export function safeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being removed.
    .replace(/[\u0000-\u001f\u007f]/g, '')
    // Bidirectional controls would show `invoice\u202Egpj.exe` as `invoiceexe.jpg`: each becomes U+FFFD.
    .replace(BIDI_CONTROLS, '\ufffd')
    .trim();
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean.slice(0, 255);
}
