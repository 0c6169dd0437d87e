/**
 * The origin Gatehouse builds absolute URLs from. With `config.url` (or `AUTH_URL`) it is pinned:
 * every link, `redirect_uri`, relying party and the secure-cookie decision come from it, and a
 * request addressed to another host is refused. Without it, the request's own URL is used (only
 * allowed with `trustHost`).
 */

/** The first value of a comma-separated header (`X-Forwarded-*`), trimmed; undefined if empty. */
export function firstHeaderValue(value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  const comma = value.indexOf(",");
  const first = (comma === -1 ? value : value.slice(0, comma)).trim();
  return first === "" ? undefined : first;
}

/**
 * Parses a configured public URL (`config.url` / `AUTH_URL`). Returns undefined for anything that
 * is not an absolute http(s) URL without credentials, query or fragment.
 */
export function parsePublicUrl(value: string | URL): URL | undefined {
  const text = typeof value === "string" ? value.trim() : value.href;
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return url;
}

/** Why a request's URL could not be used. */
export class HostMismatch extends Error {}

/**
 * The request's URL as Gatehouse sees it. With a pinned origin the host must match it (the
 * `Host`, or with `trustHost` the first `X-Forwarded-Host`), and the URL is rebased onto the
 * pinned origin: the proxy may speak plain HTTP to the app while the site is `https:`.
 */
export function effectiveUrl(
  url: URL,
  headers: Headers,
  pinned: URL | undefined,
  trustHost: boolean,
): URL {
  if (!pinned) return url;
  if (url.origin === pinned.origin) return url;
  const forwarded = trustHost ? firstHeaderValue(headers.get("x-forwarded-host")) : undefined;
  const host = url.host.toLowerCase();
  if (host !== pinned.host && forwarded?.toLowerCase() !== pinned.host) {
    throw new HostMismatch("The request's host is not the configured origin (config.url)");
  }
  // Path and query carried over by setter: never re-parsed, so `//host` stays a path.
  const rebased = new URL(pinned.origin);
  rebased.pathname = url.pathname;
  rebased.search = url.search;
  return rebased;
}
