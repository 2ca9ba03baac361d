import type { PanelModule } from './load-panel.js';

/** The panel as a dynamic import, which a site's bundler turns into a chunk of its own. */
export const importPanel = (): Promise<PanelModule> => import('../panel.js');
