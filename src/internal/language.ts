import type { Language } from '../labels/label-types.js';
import { languageNow, loadLanguageFile } from '../labels/language-files.js';
import { isRightToLeft, languageFile } from '../labels/languages.js';

export type Direction = 'ltr' | 'rtl';

/** An element that shows labels: it renders again once its language's have loaded. */
type Host = HTMLElement & { requestUpdate(): void };

/** The element, or the host of the shadow root it is in, that contains `node`. */
const parentOf = (node: Element): Element | null =>
  node.parentElement ?? ((node.getRootNode() as Partial<ShadowRoot>).host || null);

/** The value of `attribute` on the nearest element around `element` that has one, across shadow roots. */
function around(element: Element, attribute: string): string | undefined {
  for (let node = parentOf(element); node; node = parentOf(node)) {
    const value = node.getAttribute(attribute);
    if (value) return value;
  }
  return undefined;
}

const asDirection = (value: string | null): Direction | undefined =>
  value === 'rtl' || value === 'ltr' ? value : undefined;

/**
 * An element's language: its tag (the element's `lang`, else that of the page around it), the labels the
 * element shows in that language and its writing direction. A language other than English loads on first use:
 * `pending` is that load, which `SvcLocalizedElement` renders after; should a render read the labels before, it
 * shows English and renders again once they are there. `L` is the part of a {@link Language} the element shows:
 * the launcher carries only its own few English strings (`EN_LAUNCHER_LABELS`), the other elements all of `en`.
 */
export class LanguageController<L = Language> {
  #tag?: string;
  #pending?: Promise<unknown>;

  constructor(
    private readonly host: Host,
    /** The element's labels in English. */
    private readonly english: L,
    /** The element's labels in a language that has loaded. */
    private readonly pick: (language: Language) => L,
  ) {}

  /** The BCP 47 tag of the labels: the element's own `lang`, else the nearest one around it. */
  get tag(): string {
    return this.host.lang || around(this.host, 'lang') || 'en';
  }

  /** The labels: English until the language's file has loaded (and if it cannot load). */
  get labels(): L {
    const language = languageNow(this.tag);
    if (language) return this.pick(language);
    this.loading();
    return this.english;
  }

  /** Starts loading the labels of the element's language unless they are here; true while they load. */
  loading(): boolean {
    const tag = this.tag;
    const file = languageFile(tag);
    if (!file || languageNow(tag)) return false;
    if (this.#tag !== tag) {
      this.#tag = tag;
      const pending = loadLanguageFile(file)
        .then(
          () => this.host.requestUpdate(),
          (error: unknown) => console.error(`svc: the labels of "${tag}" did not load, so they show in English`, error),
        )
        .finally(() => {
          if (this.#pending === pending) this.#pending = undefined;
        });
      this.#pending = pending;
    }
    return !!this.#pending;
  }

  /** While the labels of the element's language load: settles once they are there (or failed to load). */
  get pending(): Promise<unknown> | undefined {
    return this.#pending;
  }

  /**
   * The direction to lay the element out in: its own `dir`; else that of its own `lang` (`lang="ar"` is right
   * to left even on a page marked `dir="ltr"`); else the nearest `dir` around it; else that of the language
   * around it.
   */
  get dir(): Direction {
    const host = this.host;
    const given =
      asDirection(host.getAttribute('dir')) ?? (host.lang ? undefined : asDirection(around(host, 'dir') ?? null));
    return given ?? (isRightToLeft(this.tag) ? 'rtl' : 'ltr');
  }
}
