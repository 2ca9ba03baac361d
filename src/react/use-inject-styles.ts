'use client';

import { useInsertionEffect } from 'react';
import { CHAT_CSS } from '../theme/chat-css.js';

/** The one page-wide sheet and how many mounted components want it. */
let injected: { users: number; remove: () => void } | undefined;

/**
 * Constructable sheets are not inline styles, so a Content-Security-Policy without `'unsafe-inline'` allows
 * them; a `<style>` element is the fallback for browsers without them.
 */
function inject(): () => void {
  if ('adoptedStyleSheets' in document && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CHAT_CSS);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return () => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    };
  }
  const style = document.createElement('style');
  style.dataset.svcChat = '';
  style.textContent = CHAT_CSS;
  document.head.append(style);
  return () => style.remove();
}

/**
 * Adds {@link CHAT_CSS} (the design tokens of both themes for every `svc-*` element) to the page once, however
 * many components call this; it is removed when the last of them unmounts or passes `false`.
 */
export function useInjectStyles(enabled = true): void {
  useInsertionEffect(() => {
    if (!enabled) return;
    injected ??= { users: 0, remove: inject() };
    injected.users++;
    return () => {
      if (!injected || --injected.users > 0) return;
      injected.remove();
      injected = undefined;
    };
  }, [enabled]);
}
