import type { PropertyDeclarations } from 'lit';
import { LanguageController } from './language.js';
import { SvcElement } from './svc-element.js';

/**
 * The base of the elements that show labels (the chat, the SMS sign-in, the cards): their language and
 * their direction. The labels of a language other than English load before the element renders in it (one
 * small file, once per page), so it never shows English first, and `updateComplete` waits for them.
 */
export class SvcLocalizedElement extends SvcElement {
  static override properties: PropertyDeclarations = {
    lang: {},
    dir: { reflect: true },
  };

  /** Language of the labels (default: the page's language): `en`, `zh-CN`, `ar` or any BCP 47 tag. */
  declare lang: string;
  /** `rtl` or `ltr` (default: the direction of `lang`, else the page's): a change lays the element out again. */
  declare dir: string;

  /** The labels and the writing direction of the element's language. */
  protected readonly language = new LanguageController(this);

  protected override async scheduleUpdate(): Promise<unknown> {
    if (this.language.loading()) await this.language.pending;
    return super.scheduleUpdate();
  }
}
