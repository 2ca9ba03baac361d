/** Only http(s) URLs reach `src`/`href` attributes or `window.open`: never `javascript:` or `data:`. */
export function safeUrl(value: string): URL | undefined {
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
