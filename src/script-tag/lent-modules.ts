/**
 * What the script-tag launcher lends its panel: the modules both use. A classic script cannot share modules with
 * the ES modules it `import()`s, so `svc-chat-panel.js` is built without its own copy of these: `vite.config.ts`
 * makes each of the panel's imports of one read {@link LENT_MODULES} by index, which the launcher puts on a
 * global before it loads the panel (`import-panel.ts`). One copy of each, and one state (the languages that have
 * loaded). A module is lent whole: every value it exports is in the list (the build says which one is missing).
 * A site's bundler needs none of this: its chunks share modules.
 */
import { persistedConversation, targetAgentIds } from '../elements/chat-settings.js';
import { emit } from '../internal/emit.js';
import { CHAT_PATH, CLOSE_PATH, SEND_PATH } from '../internal/icon-paths.js';
import { languageNow, loadLanguageFile } from '../internal/labels/language-files.js';
import { isRightToLeft, LANGUAGE_FILES, languageFile } from '../internal/labels/languages.js';
import { EN_LAUNCHER_LABELS } from '../internal/labels/launcher.js';
import { LanguageController } from '../internal/language.js';
import { loadOnce } from '../internal/load-once.js';
import {
  hostThemeRules,
  PLATFORM_DARK_TOKENS,
  PLATFORM_TOKENS,
  themeRules,
  tokenStyle,
  tokenVar,
} from '../internal/tokens.js';
import { whenIdle } from '../internal/when-idle.js';

/** The lent values, in an order the panel's build reads from this file (so a name costs no bytes in either). */
export const LENT_MODULES = [
  persistedConversation,
  targetAgentIds,
  emit,
  CHAT_PATH,
  CLOSE_PATH,
  SEND_PATH,
  languageNow,
  loadLanguageFile,
  isRightToLeft,
  LANGUAGE_FILES,
  languageFile,
  EN_LAUNCHER_LABELS,
  LanguageController,
  loadOnce,
  hostThemeRules,
  PLATFORM_DARK_TOKENS,
  PLATFORM_TOKENS,
  themeRules,
  tokenStyle,
  tokenVar,
  whenIdle,
];

/** The global the launcher puts {@link LENT_MODULES} on, by `Symbol.for`: what a classic script and its ES modules share. */
export const LENT_KEY = 'svc-chat.lent-modules';
