/**
 * Escaping and URL checks for the built-in pages. Every value that reaches the HTML goes
 * through {@link escapeHtml}; every URL that the browser would load or follow goes through
 * one of the checks below first.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes a value for HTML text and for double- or single-quoted attribute values.
 *
 * @example
 * ```ts
 * escapeHtml(`"><script>`); // "&quot;&gt;&lt;script&gt;"
 * ```
 */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

// Browsers drop tabs and newlines inside URLs and trim control characters and spaces at
// both ends, so "/\t/evil.example" is followed as "//evil.example". Refuse them all.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_URL_CHARS = /[\u0000-\u0020\u007f\\]/;

/** A path on the current site: `/x`, `./x` or `../x`, never `//host` (protocol-relative). */
function isRelativePath(value: string): boolean {
  return /^(?:\.{1,2})?\/(?!\/)/.test(value) && !UNSAFE_URL_CHARS.test(value);
}

function parseHttpUrl(value: string): URL | undefined {
  if (UNSAFE_URL_CHARS.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
}

/** An inline image: `data:image/<subtype>` followed by parameters or the data. */
function isDataImage(value: string): boolean {
  return /^data:image\/[a-z0-9.+-]+[;,]/i.test(value);
}

/**
 * Checks an image URL before it goes into `<img src>`.
 *
 * Always accepted: `data:image/...` URIs and paths on the current site. Absolute http(s)
 * URLs are accepted when `anyHttpHost` is set (the operator typed the URL into the theme)
 * or when their origin is `sameOrigin`. Anything else gives `undefined`, so no image from a
 * third-party host is ever loaded unless the operator asked for it.
 */
export function safeImageSrc(
  value: string | undefined,
  options: { anyHttpHost: boolean; sameOrigin?: string },
): string | undefined {
  if (!value) return undefined;
  if (isDataImage(value) || isRelativePath(value)) return value;
  const url = parseHttpUrl(value);
  if (!url) return undefined;
  if (options.anyHttpHost || url.origin === options.sameOrigin) return value;
  return undefined;
}

/**
 * Checks a URL before it becomes a link target or a form action: an absolute http(s) URL or
 * a path on the current site. Anything else (`javascript:`, `data:`, `//host`) gives
 * `fallback`.
 */
export function safeNavigationUrl(value: string | undefined, fallback = "/"): string {
  if (value && (isRelativePath(value) || parseHttpUrl(value))) return value;
  return fallback;
}

/** The origin of an absolute http(s) URL, if it is one. */
export function originOf(value: string): string | undefined {
  return parseHttpUrl(value)?.origin;
}

/** The host of an absolute http(s) URL, for display; the value itself otherwise. */
export function displayHost(value: string): string {
  return parseHttpUrl(value)?.host ?? value;
}
