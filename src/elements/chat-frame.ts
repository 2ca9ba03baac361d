import { h, iconNode, setAttributes } from '../internal/dom.js';
import { CHAT_PATH, CLOSE_PATH } from '../internal/icon-paths.js';
import type { LauncherLabels } from '../internal/labels/launcher.js';
import type { Direction } from '../internal/language.js';
import type { ChatPanel } from './chat-panel.js';
import { LoadingState } from './loading-state.js';
import styles from './svc-chat.styles.js';

/** The launcher's styles, made once for every chat on the page. */
let sheet: CSSStyleSheet | undefined;

/** What `<svc-chat>` shows, as its update gives it to {@link ChatFrame}. */
export interface FrameState {
  labels: LauncherLabels;
  dir: Direction;
  title: string;
  /** `mode="launcher"`: a floating button and, while `opened`, its panel. */
  launcher: boolean;
  opened: boolean;
  unread: number;
  /** The launcher's panel covers the screen (a phone): it is a modal dialog. */
  modal: boolean;
  /** The panel's file did not load. */
  failed: boolean;
  /** The panel, once it has arrived. */
  panel?: ChatPanel;
}

/** What the frame's buttons do. */
export interface FrameActions {
  toggle(): void;
  close(): void;
  /** The visitor points at or focuses the launcher: the panel starts loading. */
  warm(): void;
}

/**
 * The DOM `<svc-chat>` draws before Lit has loaded, with DOM calls, and its styles: the launcher's button, and
 * the panel's frame (its header: the title, the page's buttons, the panel's, the close button), in which the
 * panel renders once it has arrived and the loading state shows until then.
 */
export class ChatFrame {
  readonly loading = new LoadingState();
  #launcher?: HTMLButtonElement;
  /** What the launcher shows (its icon and badge), to draw them again only when it changes. */
  #launcherShows?: string;
  #frame?: { section: HTMLElement; heading: HTMLElement; actions: Comment; close: HTMLButtonElement };

  constructor(
    private readonly root: ShadowRoot,
    private readonly actions: FrameActions,
  ) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(styles);
    }
    root.adoptedStyleSheets = [sheet];
  }

  /** The launcher's button, while there is one. */
  get launcher(): HTMLButtonElement | undefined {
    return this.#launcher?.isConnected ? this.#launcher : undefined;
  }

  draw(state: FrameState): void {
    if (state.launcher && !state.opened) this.#frame?.section.remove();
    else this.#drawPanel(state);
    if (state.launcher) this.#drawLauncher(state);
    else this.#launcher?.remove();
  }

  #drawLauncher({ labels, dir, opened, unread }: FrameState): void {
    const { warm, toggle } = this.actions;
    this.#launcher ??= h('button', {
      part: 'launcher',
      type: 'button',
      onclick: toggle,
      onpointerenter: warm,
      onfocus: warm,
    });
    const button = this.#launcher;
    setAttributes(button, {
      dir,
      'aria-label': opened ? labels.close : unread > 0 ? labels.openUnread(unread) : labels.open,
      'aria-expanded': String(opened),
    });
    const shows = `${opened} ${unread}`;
    if (shows !== this.#launcherShows) {
      this.#launcherShows = shows;
      const badge = unread > 0 && !opened ? [h('span', { part: 'badge', 'aria-hidden': 'true' }, String(unread))] : [];
      button.replaceChildren(iconNode(opened ? CLOSE_PATH : CHAT_PATH), ...badge);
    }
    if (!button.parentNode) this.root.append(button);
  }

  /** The panel's frame, and in it the panel once it has arrived, else the loading state. */
  #drawPanel({ labels, dir, title, launcher, modal, failed, panel }: FrameState): void {
    this.#frame ??= this.#makeFrame();
    const { section, heading, actions, close } = this.#frame;
    setAttributes(section, {
      dir,
      role: launcher ? 'dialog' : 'region',
      'aria-modal': modal ? 'true' : undefined,
      'aria-label': title,
      'aria-busy': panel ? undefined : 'true',
    });
    heading.textContent = title;
    setAttributes(close, { title: labels.close, 'aria-label': labels.close });
    if (!launcher) close.remove();
    else if (!close.parentNode) actions.after(close);
    if (!section.parentNode) this.root.prepend(section);
    if (panel) {
      this.loading.remove();
      panel.draw(section, actions);
    } else this.loading.draw(section, labels, failed);
  }

  /** The panel and its header: the title, the page's buttons, the panel's (before `actions`), the close button. */
  #makeFrame() {
    const heading = h('h2', { part: 'title' });
    const actions = document.createComment('');
    const close = h(
      'button',
      { class: 'icon-button', part: 'close-button', type: 'button', onclick: this.actions.close },
      iconNode(CLOSE_PATH),
    );
    const header = h('header', { part: 'header' }, heading, h('slot', { name: 'header-actions' }), actions);
    return { section: h('section', { part: 'panel' }, header), heading, actions, close };
  }
}
