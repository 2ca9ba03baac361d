/**
 * Design tokens. Every element declares them on `:host` as `--svc-*` custom properties; a page overrides
 * any of them from outside (`svc-chat { --svc-color-primary: teal }`), since page rules on a host beat
 * its `:host` rules.
 */
export interface PlatformTokens {
  colorPrimary: string;
  colorOnPrimary: string;
  colorBg: string;
  colorSurface: string;
  colorText: string;
  colorMuted: string;
  colorBorder: string;
  colorDanger: string;
  colorSuccess: string;
  colorLink: string;
  colorCodeBg: string;
  colorUserBubble: string;
  colorOnUserBubble: string;
  colorAgentBubble: string;
  colorFocus: string;
  radiusS: string;
  radiusM: string;
  radiusL: string;
  fontFamily: string;
  fontMono: string;
  fontSize: string;
  shadow: string;
}

const shared = {
  radiusS: '6px',
  radiusM: '12px',
  radiusL: '18px',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Microsoft YaHei", sans-serif',
  fontMono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  fontSize: '15px',
};

/** The light theme, also the default. */
export const PLATFORM_TOKENS: PlatformTokens = {
  ...shared,
  colorPrimary: '#4f46e5',
  colorOnPrimary: '#ffffff',
  colorBg: '#ffffff',
  colorSurface: '#f5f6f8',
  colorText: '#1f2328',
  colorMuted: '#5b6470',
  colorBorder: '#d9dee5',
  colorDanger: '#c62828',
  colorSuccess: '#1a7f37',
  colorLink: '#1d5fd1',
  colorCodeBg: '#f3f4f6',
  colorUserBubble: '#4f46e5',
  colorOnUserBubble: '#ffffff',
  colorAgentBubble: '#f1f3f6',
  colorFocus: '#4f46e5',
  shadow: '0 12px 32px rgba(15, 23, 42, 0.18)',
};

export const PLATFORM_DARK_TOKENS: PlatformTokens = {
  ...shared,
  colorPrimary: '#8b87ff',
  colorOnPrimary: '#0f1020',
  colorBg: '#15171c',
  colorSurface: '#1d2027',
  colorText: '#e8eaee',
  colorMuted: '#a0a8b4',
  colorBorder: '#343a45',
  colorDanger: '#ff7b72',
  colorSuccess: '#56d364',
  colorLink: '#8ab4ff',
  colorCodeBg: '#22262e',
  colorUserBubble: '#5b55f0',
  colorOnUserBubble: '#ffffff',
  colorAgentBubble: '#22262e',
  colorFocus: '#8b87ff',
  shadow: '0 12px 32px rgba(0, 0, 0, 0.5)',
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `{ colorPrimary: 'teal' }` → `{ '--svc-color-primary': 'teal' }`, usable as an inline style object. */
export function tokenStyle(tokens: Partial<PlatformTokens>): Record<string, string> {
  const style: Record<string, string> = {};
  for (const [name, value] of Object.entries(tokens)) {
    if (typeof value === 'string') style[`--svc-${kebab(name)}`] = value;
  }
  return style;
}

const declarations = (tokens: Partial<PlatformTokens>) =>
  Object.entries(tokenStyle(tokens))
    .map(([k, v]) => `${k}:${v};`)
    .join('');

/**
 * Rules that set the tokens of both themes: light on `base`, dark on `dark` and, when the system prefers
 * dark, on `auto`. Elements pass `:host` selectors; `CHAT_CSS` passes tag lists.
 */
export function themeRules(base: string, dark: string, auto: string): string {
  // `color-scheme` gives native controls (a date field's picker, a select, scrollbars) the theme's colors.
  const darkTokens = `${declarations(PLATFORM_DARK_TOKENS)}color-scheme:dark;`;
  return `${base}{${declarations(PLATFORM_TOKENS)}color-scheme:light;}${dark}{${darkTokens}}@media (prefers-color-scheme:dark){${auto}{${darkTokens}}}`;
}

/** `var(--svc-…, <light default>)`: a token as every element reads it, with the light theme where none is set. */
export function tokenVar(name: keyof PlatformTokens): string {
  return `var(--svc-${kebab(name)}, ${PLATFORM_TOKENS[name]})`;
}

/** The rules of an element's `theme` attribute: the tokens of the theme it names, declared on its host. */
export const hostThemeRules = () => themeRules(':host([theme=light])', ':host([theme=dark])', ':host([theme=auto])');
