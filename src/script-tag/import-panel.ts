import type { PanelModule } from '../elements/load-panel.js';
import { importNextToScript } from './next-to-script.js';

/** `elements/import-panel.ts` in the launcher's files: the panel is `svc-chat-panel.js`, next to the script. */
export const importPanel = () => importNextToScript<PanelModule>('svc-chat-panel.js');
