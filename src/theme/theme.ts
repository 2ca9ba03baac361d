import { unsafeCSS } from 'lit';
import { hostThemeRules, type PlatformTokens, tokenVar } from './tokens.js';

/**
 * How every element themes itself, the one way: its `theme` attribute (`light`, `dark`, `auto`) declares the
 * design tokens on it, and its styles read them with {@link token}. Without a `theme` an element declares
 * none and inherits them: a card or the sign-in inside `<svc-chat>` takes the chat's, on a page whatever
 * `--svc-*` values apply there. `<svc-chat>` reflects its `theme` (`light` by default), so it always declares.
 */
export const themeStyles = unsafeCSS(hostThemeRules());

/** A token in a Lit `css` template (`tokenVar`). */
export const token = (name: keyof PlatformTokens) => unsafeCSS(tokenVar(name));
