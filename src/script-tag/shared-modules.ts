/**
 * What both launchers (`svc-chat.js`, `svc-chat.esm.js`) share with the files they load: the modules of the launcher
 * that the panel uses too, put on the page under one well-known symbol before the launcher loads anything. The
 * script-tag build of the panel reads them from there instead of bundling its own copies (`build/take-shared-modules.ts`),
 * so the classic script can be the launcher itself, one request before it paints, and there is still one copy and
 * one state of each (the languages loaded, the markdown engine). A site's bundler imports these modules as modules.
 */
import * as chatSettings from '../elements/svc-chat/chat-settings.js';
import * as panelFrameStyles from '../elements/svc-chat/panel-frame.styles.js';
import * as engine from '../elements/svc-markdown/engine.js';
import * as emit from '../internal/emit.js';
import * as iconPaths from '../internal/icon-paths.js';
import * as language from '../internal/language.js';
import * as whenIdle from '../internal/when-idle.js';
import * as languageFiles from '../labels/language-files.js';
import * as languages from '../labels/languages.js';
import * as launcherLabels from '../labels/launcher.js';
import * as tokens from '../theme/tokens.js';

/** The symbol's name (`Symbol.for`), which the panel's build reads (vite.config.ts). */
export const SHARED_MODULES_KEY = 'svc-chat.shared-modules';

// The build reads this object from this file's source: each key, and the module of its value.
(globalThis as Record<symbol, unknown>)[Symbol.for(SHARED_MODULES_KEY)] ??= {
  'chat-settings': chatSettings,
  'panel-frame.styles': panelFrameStyles,
  engine,
  emit,
  'icon-paths': iconPaths,
  language,
  'when-idle': whenIdle,
  'language-files': languageFiles,
  languages,
  launcher: launcherLabels,
  tokens,
};
