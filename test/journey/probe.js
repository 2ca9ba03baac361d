/**
 * The journey's eyes in the page (served by the test site, loaded before the widget): it records what a test
 * must see and a visitor need not (errors the page logs or throws, policy violations, the chat's events) and
 * finds the widget's parts through its shadow roots: the visitor's `<svc-chat>`, or the staff's `<svc-inbox>`. It
 * never acts on the page: the driver does, as a visitor or a person of the staff.
 */
window.__journey = (() => {
  const errors = [];
  const turns = [];
  // Not counted: the browser's note that some size observations wait for the next frame (the spec reports it as an
  // `error` event, though nothing threw and nothing is lost); WebKit sent it once in a CI run of the handoff journey.
  addEventListener(
    'error',
    (event) => event.message.startsWith('ResizeObserver loop') || errors.push(`error: ${event.message}`),
  );
  // A script or style that failed to load fires `error` on its element, seen only while capturing.
  addEventListener(
    'error',
    ({ target }) => target !== window && errors.push(`failed to load ${target.src || target.href || target.localName}`),
    true,
  );
  addEventListener('unhandledrejection', (event) => errors.push(`unhandled rejection: ${event.reason}`));
  document.addEventListener('securitypolicyviolation', (event) =>
    errors.push(`CSP: ${event.violatedDirective} ${event.blockedURI}`),
  );
  const consoleError = console.error;
  console.error = (...args) => {
    errors.push(args.map(String).join(' '));
    consoleError.apply(console, args);
  };
  document.addEventListener('svc-turn-complete', (event) => turns.push(event.detail.subtype));
  // The staff's inbox tells the queue at once, then each change of it.
  let queue;
  document.addEventListener('svc-queue', (event) => {
    queue = event.detail;
  });

  /**
   * Resolves with `check()` once it is truthy, checked at every animation frame (when the page renders). After
   * a minute it gives up with what the page shows, so a wait that never ends fails with a diagnosis instead of
   * the driver's bare protocol timeout.
   */
  const until = (check) =>
    new Promise((resolve, reject) => {
      let frames = 0;
      const giveUp = setTimeout(() => {
        cancelAnimationFrame(frame);
        reject(
          new Error(
            `gave up waiting for ${check} after ${frames} frames (page ${document.visibilityState}); ` +
              `${loaded()}; the chat shows: ${text(chat()).slice(-400)}; errors: ${JSON.stringify(errors)}`,
          ),
        );
      }, 60_000);
      let frame = 0;
      const step = () => {
        frames += 1;
        const value = check();
        if (!value) frame = requestAnimationFrame(step);
        else {
          clearTimeout(giveUp);
          resolve(value);
        }
      };
      step();
    });

  /** The page's widget: the chat, or the inbox on a page of the staff. */
  const widget = () => document.querySelector('svc-chat, svc-inbox');

  /**
   * The root the widget renders in: for the chat its panel's (`<svc-chat-panel>`) once that has arrived; none
   * before the element is defined (the script tag's module graph may arrive after the page's `load`).
   */
  const chat = () => {
    const root = widget()?.shadowRoot ?? null;
    return root?.querySelector('svc-chat-panel')?.shadowRoot ?? root;
  };

  /** Follows selectors from the chat's root, each into the shadow root of the last match of the one before. */
  const find = (selectors) => {
    let root = chat();
    let found = null;
    for (const selector of selectors) {
      found = root ? ([...root.querySelectorAll(selector)].at(-1) ?? null) : null;
      root = found?.shadowRoot ?? found;
    }
    return found;
  };

  /** How far the widget got: defined, the chat's panel there (what an empty chat in a diagnosis leaves open). */
  const loaded = () => {
    const name = widget()?.localName ?? 'svc-chat';
    if (!customElements.get(name)) return `<${name}> not defined (document ${document.readyState})`;
    if (name === 'svc-inbox') return 'the inbox is there';
    return widget().shadowRoot?.querySelector('svc-chat-panel')?.shadowRoot ? 'the panel is there' : 'no panel yet';
  };

  const text = (node) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const markdown = (message) => message.querySelector('svc-markdown')?.shadowRoot;

  return {
    errors: () => errors,
    until,
    /** The part once it is there, laid out and visible. */
    shown: (selectors) =>
      until(() => {
        const el = find(selectors);
        return el?.getClientRects().length && getComputedStyle(el).visibility === 'visible';
      }),
    /**
     * The centre of a part in the viewport, where a visitor would press, after scrolling it into view as a
     * WebDriver click does, once it stays in place from one frame to the next (the chat may still be scrolling
     * to its end, or laying out rows around it). Throws when something else covers that point.
     */
    centre: async (selectors) => {
      let last = '';
      const el = await until(() => {
        const found = find(selectors);
        found?.scrollIntoView({ block: 'center' });
        const rect = found?.getBoundingClientRect();
        const place = rect ? `${rect.x},${rect.y},${rect.width},${rect.height}` : '';
        const stable = place && place === last;
        last = place;
        return stable && found;
      });
      const box = el.getBoundingClientRect();
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      let hit = document.elementFromPoint(x, y);
      while (hit?.shadowRoot?.elementFromPoint(x, y) && hit.shadowRoot.elementFromPoint(x, y) !== hit) {
        hit = hit.shadowRoot.elementFromPoint(x, y);
      }
      if (!el.contains(hit))
        throw new Error(`${selectors.join(' > ')} is covered by <${hit?.localName}> at ${x}, ${y}`);
      return { x, y };
    },
    /** The inbox's queue as it was last told, once it was. */
    queue: () => until(() => queue),
    /** The subtype of the `n`th completed turn (1 is the first), once it completed. */
    turn: (n) => until(() => turns[n - 1]),
    /** The last agent reply: its text, and which markdown it rendered. */
    lastReply: () => {
      const replies = [...chat().querySelectorAll('[part~="message-agent"]')];
      const last = replies.at(-1);
      const rendered = last && markdown(last);
      return {
        count: replies.length,
        text: text(rendered ?? last),
        tags: rendered ? [...new Set([...rendered.querySelectorAll('*')].map((el) => el.localName))].sort() : [],
      };
    },
    /** Resolves once every message's markdown is rendered (`updateComplete` waits for the renderer to load). */
    rendered: () => Promise.all([...(chat()?.querySelectorAll('svc-markdown') ?? [])].map((el) => el.updateComplete)),
    /** What the conversation shows: each message's side and text. */
    transcript: () =>
      [...(chat()?.querySelectorAll('[part~="message-user"], [part~="message-agent"]') ?? [])].map((message) =>
        message.matches('[part~="message-user"]')
          ? `visitor: ${text(message.querySelector('[part~="bubble"]'))}`
          : `agent: ${text(markdown(message) ?? message.querySelector('[part~="bubble"]'))}`,
      ),
    /** How many parts match `selector` in the chat's root (and say `words`, when given). */
    count: (selector, words = '') =>
      [...(chat()?.querySelectorAll(selector) ?? [])].filter((el) => text(el).includes(words)).length,
    /** Whether the chat's text (outside the replies' markdown) says `words`. */
    says: (words) => until(() => text(chat()).includes(words)),
    /** Resolves once the part `selectors` find says `words`. */
    showsText: (selectors, words) => until(() => text(find(selectors)).includes(words)),
    find,
  };
})();
