import type { ReactiveController, ReactiveControllerHost } from 'lit';
import en from './labels/en.js';
import { isRightToLeft } from './labels/languages.js';
import { languageNow, loadLanguage } from './labels/load-language.js';
import type { Language } from './labels/types.js';

export type Direction = 'ltr' | 'rtl';

type Host = ReactiveControllerHost & HTMLElement;

/** The element, or the host of the shadow root it is in, that contains `node`. */
const parentOf = (node: Element): Element | null =>
  node.parentElement ?? ((node.getRootNode() as Partial<ShadowRoot>).host || null);

const asDirection = (value: string | null): Direction | undefined =>
  value === 'rtl' || value === 'ltr' ? value : undefined;

/**
 * An element's language: its tag (the element's `lang`, else the page's), the labels of that language and
 * its writing direction. A language other than English loads on first use (English shows meanwhile, then
 * the element renders again); `pending` is that load.
 */
export class LanguageController implements ReactiveController {
  #tag?: string;
  #pending?: Promise<unknown>;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  hostConnected(): void {}

  /** The BCP 47 tag of the labels. */
  get tag(): string {
    return this.host.lang || document.documentElement.lang || 'en';
  }

  /** The labels of the language: English until its file has loaded. */
  get labels(): Language {
    const tag = this.tag;
    const language = languageNow(tag);
    if (language) return language;
    if (this.#tag !== tag) {
      this.#tag = tag;
      const pending = loadLanguage(tag)
        .then(
          () => this.host.requestUpdate(),
          (error: unknown) => console.error(`svc: the labels of "${tag}" did not load, so they show in English`, error),
        )
        .finally(() => {
          if (this.#pending === pending) this.#pending = undefined;
        });
      this.#pending = pending;
    }
    return en;
  }

  /** While the labels of the element's language load: settles once they are there (or failed to load). */
  get pending(): Promise<unknown> | undefined {
    return this.#pending;
  }

  /**
   * The direction to lay the element out in: its own `dir`; else that of its own `lang` (`lang="ar"` is right
   * to left even on a page marked `dir="ltr"`); else the nearest `dir` around it; else that of the page's
   * language.
   */
  get dir(): Direction {
    const host = this.host;
    const own = asDirection(host.getAttribute('dir'));
    if (own) return own;
    if (host.lang) return isRightToLeft(host.lang) ? 'rtl' : 'ltr';
    for (let node = parentOf(host); node; node = parentOf(node)) {
      const around = asDirection(node.getAttribute('dir'));
      if (around) return around;
    }
    return isRightToLeft(document.documentElement.lang) ? 'rtl' : 'ltr';
  }
}
