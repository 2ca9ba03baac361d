import type { PropertyDeclarations } from 'lit';
import type { LanguageController } from './language.js';
import { SvcElement } from './svc-element.js';

/**
 * The base of the elements that show labels: their language and their direction. The labels of a language
 * other than English load before the element renders in it (one small file, once per page), so it never shows
 * English first, and `updateComplete` waits for them. Each element makes its `language` with `localize` (every
 * label), but `<svc-chat>`, whose launcher carries only its own few strings.
 */
export abstract class SvcLocalizedElement extends SvcElement {
  static override properties: PropertyDeclarations = {
    lang: {},
    dir: { reflect: true },
  };

  /**
   * The language of the labels, any BCP 47 tag: `zh*` gives Simplified Chinese, `ar*` Arabic (right to left),
   * anything else English (see Languages and right to left).
   * @default the page's `lang`
   */
  declare lang: string;
  /**
   * The direction to lay the element out in, `ltr` or `rtl`: a change lays it out again.
   * @default the direction of `lang`, else the page's
   */
  declare dir: string;

  /** The labels and the writing direction of the element's language. */
  protected abstract readonly language: LanguageController<unknown>;

  protected override async scheduleUpdate(): Promise<unknown> {
    if (this.language.loading()) await this.language.pending;
    return super.scheduleUpdate();
  }
}
