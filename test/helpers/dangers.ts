/**
 * The one detector of dangerous DOM the security tests share: what in a rendered tree could run script, restyle
 * the page or leak data.
 */

/** Elements that must never come out of rendered content. */
const FORBIDDEN = new Set(
  'script iframe frame frameset object embed applet form input button select textarea svg math base meta link style template'.split(
    ' ',
  ),
);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'xlink:href', 'formaction', 'poster', 'background', 'data']);
const SCRIPT_URL = /^(?:javascript|data|vbscript):/i;

// Read through the prototypes: a payload's <input name="attributes"> could clobber an element's properties.
const { getAttribute, getAttributeNames } = Element.prototype;
const localName = Object.getOwnPropertyDescriptor(Element.prototype, 'localName')!.get!;

/** The element's tag, read where a payload cannot clobber it. */
export const tagOf = (el: Element): string => localName.call(el) as string;

/** The element's attribute, read where a payload cannot clobber it. */
export const attributeOf = (el: Element, name: string): string | null => getAttribute.call(el, name) as string | null;

/**
 * What is dangerous in one element's attributes: an event handler, a style, a script URL, and a link that does
 * not open apart (`target=_blank rel="noopener noreferrer"`).
 */
export function attributeDangers(el: Element): string[] {
  const found: string[] = [];
  const tag = tagOf(el);
  for (const name of getAttributeNames.call(el) as string[]) {
    const value = attributeOf(el, name)!;
    if (name.startsWith('on')) found.push(`${tag}[${name}]`);
    if (name === 'style') found.push(`${tag}[style]`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL parser ignores control characters.
    if (URL_ATTRIBUTES.has(name) && SCRIPT_URL.test(value.replace(/[\u0000-\u0020]/g, ''))) {
      found.push(`${tag}[${name}=${value.slice(0, 30)}]`);
    }
  }
  if (tag === 'a' && (attributeOf(el, 'target') !== '_blank' || attributeOf(el, 'rel') !== 'noopener noreferrer')) {
    found.push(`<a href=${attributeOf(el, 'href')?.slice(0, 30)}> ${UNSAFE_LINK}`);
  }
  return found;
}

/** How {@link attributeDangers} names a link that does not open apart. */
export const UNSAFE_LINK = 'without target=_blank rel="noopener noreferrer"';

/**
 * An element that must never come out of rendered content, as `<tag>`; none for any other, and for the copy
 * button the markdown itself puts before a code block after sanitizing.
 */
export function forbiddenElement(el: Element): string | undefined {
  const tag = tagOf(el);
  const copyButton =
    tag === 'button' && attributeOf(el, 'part') === 'copy' && el.nextElementSibling?.localName === 'pre';
  return FORBIDDEN.has(tag) && !copyButton ? `<${tag}>` : undefined;
}

/** Every element under `root`, into every shadow root. */
export function* walk(root: ParentNode): Generator<Element> {
  for (const el of root.querySelectorAll('*')) {
    yield el;
    if (el.shadowRoot) yield* walk(el.shadowRoot);
  }
}

/** What is dangerous in rendered content under `root`: its forbidden elements and every element's attributes. */
export function contentDangers(root: ParentNode): string[] {
  return [...walk(root)].flatMap((el) => [forbiddenElement(el) ?? [], attributeDangers(el)].flat());
}
