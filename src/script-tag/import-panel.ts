import type { PanelModule } from '../elements/load-panel.js';
import { LENT_KEY, LENT_MODULES } from './lent-modules.js';
import { importNextToScript } from './next-to-script.js';

/**
 * `elements/import-panel.ts` in the launcher's files: the panel is `svc-chat-panel.js`, next to the script, and
 * finds the modules the launcher lends it (`lent-modules.ts`) on a global. A page that loads the script twice
 * loads the panel once (one URL), with the modules of the launcher that asked first.
 */
export const importPanel = (): Promise<PanelModule> => {
  (globalThis as Record<symbol, unknown>)[Symbol.for(LENT_KEY)] ??= LENT_MODULES;
  return importNextToScript<PanelModule>('svc-chat-panel.js');
};
