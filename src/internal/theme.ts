import { unsafeCSS } from 'lit';
import { PLATFORM_TOKENS, type PlatformTokens, themeRules, tokenStyle } from './tokens.js';

/**
 * How every element themes itself, the one way: its `theme` attribute (`light`, `dark`, `auto`) declares the
 * design tokens on it, and its styles read them with {@link token}. Without a `theme` an element declares
 * none and inherits them: a card or the sign-in inside `<svc-chat>` takes the chat's, on a page whatever
 * `--svc-*` values apply there. `<svc-chat>` reflects its `theme` (`light` by default), so it always declares.
 */
export const themeStyles = unsafeCSS(themeRules(':host([theme=light])', ':host([theme=dark])', ':host([theme=auto])'));

/** `var(--svc-…, <light default>)`: a token as every element reads it, with the light theme where none is set. */
export function token(name: keyof PlatformTokens) {
  const [property] = Object.keys(tokenStyle({ [name]: PLATFORM_TOKENS[name] }));
  return unsafeCSS(`var(${property}, ${PLATFORM_TOKENS[name]})`);
}
