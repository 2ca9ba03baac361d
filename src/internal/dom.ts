/** Attributes of an element made by {@link h}; a function is a listener of the event its `on…` name says. */
export type Attributes = Record<string, string | ((event: Event) => void)>;

/**
 * An element with its attributes and children: how `<svc-chat>` draws its launcher and loading state before
 * Lit has loaded. DOM calls only (no HTML strings), so it needs nothing from Trusted Types.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag as string);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value);
  }
  element.append(...children);
  return element as HTMLElementTagNameMap[K];
}

const SVG = 'http://www.w3.org/2000/svg';
const ICON = {
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  'stroke-width': '2',
  'stroke-linecap': 'round',
  'stroke-linejoin': 'round',
  'aria-hidden': 'true',
};

/** An icon of `icon-paths.ts`, drawn as the panel's Lit `icon()` draws it. */
export function iconNode(path: string): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [name, value] of Object.entries(ICON)) svg.setAttribute(name, value);
  const line = document.createElementNS(SVG, 'path');
  line.setAttribute('d', path);
  svg.append(line);
  return svg;
}

/** Sets each attribute to its value, and removes those whose value is `undefined`. */
export function setAttributes(element: Element, attributes: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) element.removeAttribute(name);
    else element.setAttribute(name, value);
  }
}
