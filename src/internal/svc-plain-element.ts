import { type EmitOptions, emit, type SvcEvent, type SvcEventDetail, type SvcEventName } from './emit.js';

/** A property as Lit declares it (the subset `<svc-chat>` uses), so the manifest reads it the same way. */
export interface PlainProperty {
  attribute?: string | false;
  type?: BooleanConstructor;
  reflect?: boolean;
  state?: boolean;
}

/**
 * `HTMLElement`, or a plain class where there is none (a server rendering the page: Next.js, Node), so that
 * importing the element never throws; it registers only where `customElements` exists.
 */
const Base: typeof HTMLElement = globalThis.HTMLElement ?? (class {} as typeof HTMLElement);

/** Each element class's attributes, by name: the property each sets (none: an `HTMLElement` property's own). */
const attributesOf = new WeakMap<object, Map<string, string | undefined>>();

/** Each element class's properties: its own and those of the classes it extends (a base's, a mixin's). */
const propertiesOf = new WeakMap<object, Record<string, PlainProperty>>();

/** The properties an element class declares, with those of every class it extends, a subclass's winning. */
function collectProperties(element: typeof SvcPlainElement): Record<string, PlainProperty> {
  const inherited = element === SvcPlainElement ? {} : collectProperties(Object.getPrototypeOf(element));
  return Object.hasOwn(element, 'properties') ? { ...inherited, ...element.properties } : inherited;
}

/**
 * Every property an element class declares, by name: its own and those of the classes it extends (a base's, a
 * mixin's), as Lit's `elementProperties` has them. Known once the element is defined (`define`).
 */
export const declaredProperties = (element: object): Record<string, PlainProperty> => propertiesOf.get(element)!;

/** Each element class's sheet, made from its `styles` once. */
const sheets = new WeakMap<object, CSSStyleSheet>();

function adoptStyles(root: ShadowRoot, element: object): ShadowRoot {
  let sheet = sheets.get(element);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync((element as typeof SvcPlainElement).styles);
    sheets.set(element, sheet);
  }
  root.adoptedStyleSheets = [sheet];
  return root;
}

/** Each element's property values. */
const valuesOf = new WeakMap<Element, Map<string, unknown>>();

/** Gives the element class an accessor for each of its own properties, its attributes, and registers it. */
function register(element: typeof SvcPlainElement, tag: string): void {
  const attributes = new Map<string, string | undefined>();
  const properties = collectProperties(element);
  propertiesOf.set(element, properties);
  for (const [name, options] of Object.entries(properties)) {
    // `lang` and `dir` keep the accessors of every element, which reflect: a change of them updates the element.
    const own = !(name in Base.prototype);
    if (!options.state && options.attribute !== false)
      attributes.set(options.attribute || name, own ? name : undefined);
    if (!own) continue;
    Object.defineProperty(element.prototype, name, {
      get(this: SvcPlainElement) {
        return valuesOf.get(this)?.get(name);
      },
      set(this: SvcPlainElement, value: unknown) {
        const values = valuesOf.get(this) ?? new Map<string, unknown>();
        valuesOf.set(this, values);
        const old = values.get(name);
        if (Object.is(old, value)) return;
        values.set(name, value);
        this.requestUpdate(name, old);
      },
      configurable: true,
    });
  }
  attributesOf.set(element, attributes);
  if (globalThis.customElements && !customElements.get(tag))
    customElements.define(tag, element as unknown as CustomElementConstructor);
}

/**
 * The base of `<svc-chat>`, the element a page loads before its launcher paints: Lit's reactive properties
 * (declared in `static properties` as for Lit) and batched updates, without Lit, and only what the launcher
 * uses. Lit's `ReactiveElement` in its place makes the launcher's file 1.8 KB gzip larger, over the 8 KB a page
 * may load first (docs/performance.md, bundle size). An element draws itself with DOM calls in `update`.
 */
export abstract class SvcPlainElement extends Base {
  static properties: Record<string, PlainProperty> = {
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

  /** The element's styles (a `css` string), adopted by its shadow root as a sheet made once per class. */
  static styles = '';

  /** Registers the element; a second registration (the script loaded twice) is ignored instead of throwing. */
  static define(tag: string): void {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass being registered.
    register(this, tag);
  }

  static get observedAttributes(): string[] {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass.
    return [...(attributesOf.get(this)?.keys() ?? [])];
  }

  /** Properties changed since the last update, with their former values. */
  #changed = new Map<string, unknown>();
  /** Set on the page before the element was defined: applied once it connects (as Lit does). */
  #early?: Map<string, unknown>;
  #updating: Promise<boolean> = Promise.resolve(true);
  #requested = false;
  #connected = false;
  #reflecting = false;
  readonly renderRoot: ShadowRoot = adoptStyles(this.attachShadow({ mode: 'open' }), this.constructor);

  constructor() {
    super();
    for (const name of Object.keys(declaredProperties(this.constructor))) {
      if (Object.hasOwn(this, name)) {
        this.#early ??= new Map();
        this.#early.set(name, (this as Record<string, unknown>)[name]);
        delete (this as Record<string, unknown>)[name];
      }
    }
  }

  connectedCallback(): void {
    if (this.#early) for (const [name, value] of this.#early) (this as Record<string, unknown>)[name] = value;
    this.#early = undefined;
    this.#connected = true;
    this.requestUpdate();
  }

  disconnectedCallback(): void {
    this.#connected = false;
  }

  attributeChangedCallback(attribute: string, old: string | null, value: string | null): void {
    const name = attributesOf.get(this.constructor)?.get(attribute);
    if (this.#reflecting || old === value) return;
    if (!name) {
      this.requestUpdate(attribute, old);
      return;
    }
    const boolean = declaredProperties(this.constructor)[name]!.type === Boolean;
    (this as Record<string, unknown>)[name] = boolean ? value !== null : (value ?? undefined);
  }

  /** Sets the attributes of the reflected properties that changed (an element may not in its constructor). */
  #reflect(changed: Map<string, unknown>): void {
    const properties = declaredProperties(this.constructor);
    this.#reflecting = true;
    for (const name of changed.keys()) {
      const { reflect, attribute } = properties[name] ?? {};
      const value = valuesOf.get(this)?.get(name);
      // `dir` reflects by itself, as every element's does.
      if (!reflect || name in Base.prototype) continue;
      if (value === false || value === undefined || value === null) this.removeAttribute(attribute || name);
      else this.setAttribute(attribute || name, value === true ? '' : String(value));
    }
    this.#reflecting = false;
  }

  /** Updates the element after the current task, once for every change made until then. */
  requestUpdate(name?: string, old?: unknown): void {
    if (name && !this.#changed.has(name)) this.#changed.set(name, old);
    if (this.#requested) return;
    this.#requested = true;
    this.#updating = this.#update(this.#updating);
  }

  async #update(previous: Promise<boolean>): Promise<boolean> {
    try {
      await previous;
    } catch (error) {
      // An update that threw does not stop the next: its error is reported as unhandled, as Lit does.
      void Promise.reject(error);
    }
    const waiting = this.scheduleUpdate();
    if (waiting) await waiting;
    // Not on the page yet: the update waits for `connectedCallback`, which asks for one.
    this.#requested = false;
    if (!this.#connected) return true;
    const changed = this.#changed;
    this.#changed = new Map();
    this.#reflect(changed);
    this.update(changed);
    return !this.#requested;
  }

  /** What an update waits for before it runs (a language's labels), if anything. */
  protected scheduleUpdate(): Promise<unknown> | undefined {
    return undefined;
  }

  /** Draws the element: `changed` holds the properties changed since the last update, with their old values. */
  protected abstract update(changed: Map<string, unknown>): void;

  /** Settles once the element has updated; false if another update is due. */
  get updateComplete(): Promise<boolean> {
    return this.getUpdateComplete();
  }

  protected getUpdateComplete(): Promise<boolean> {
    return this.#updating;
  }

  /** Dispatches a bubbling, composed event and returns it (`emit.ts`). */
  emit<K extends SvcEventName>(name: K, detail: SvcEventDetail<K>, options?: EmitOptions): SvcEvent<K> {
    return emit(this, name, detail, options);
  }
}
