import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `svc-chat-panel.<hash>.js` → `svc-chat-panel.js`: a chunk's name without its content's hash. */
export const unhashed = (name) => name.replace(/^(svc-chat-[\w-]+)\.[\w-]{8}\.js$/, '$1.js');

/**
 * The script-tag files of a built `dist` folder, by their names without the hash (`svc-chat-panel.js`) → as built
 * (`svc-chat-panel.Bmx5IKwN.js`): the two entries keep their names, every chunk is named by its content.
 */
export function scriptTagFiles(dist) {
  return Object.fromEntries(
    readdirSync(dist)
      .filter((name) => /^svc-chat.*\.js$/.test(name))
      .map((name) => [unhashed(name), join(dist, name)]),
  );
}
