/**
 * The redirect answer of the protection helpers, and where it points: a fixed path, or the
 * sign-in page with the page the visitor asked for as `callbackUrl`.
 */

/**
 * Where a protection helper (an integration's `requireSession`, `createAuthMiddleware`)
 * sends a visitor without a session. Set one of the two, or neither for the default `/`.
 */
export interface SignedOutRedirect {
  /**
   * A path on this site to send the visitor to, such as `"/"` or `"/welcome"`. Default `/`.
   * Cannot be combined with `signIn`.
   */
  redirectTo?: string;
  /**
   * `true`: send the visitor to the sign-in page, `{prefix}/signin?callbackUrl=<page>`, where
   * `<page>` is the path and query of the page they asked for, so that signing in brings them
   * back to it. The sign-in route shows the built-in page, or redirects to `pages.signIn` with
   * the same `callbackUrl` when the config names one. Cannot be combined with `redirectTo`.
   */
  signIn?: boolean;
}

/**
 * A `302` response to `location`: what `redirect()` of `@solidjs/router` builds, and what the
 * router and SolidStart follow when a query or server function throws or returns it. Built here
 * so that a server entry does not load a router's browser build.
 */
export function redirectResponse(location: string, headers?: Headers): Response {
  const out = new Headers(headers);
  out.set("Location", location);
  return new Response(null, { status: 302, headers: out });
}

/**
 * Checks a {@link SignedOutRedirect} once, when the helper is set up: `redirectTo` and `signIn`
 * together are a mistake the caller should hear about, not a silent choice.
 */
export function assertSignedOutRedirect(helper: string, options: SignedOutRedirect): void {
  if (options.signIn && options.redirectTo !== undefined) {
    throw new TypeError(`${helper}: set redirectTo or signIn, not both`);
  }
  if (options.redirectTo !== undefined && typeof options.redirectTo !== "string") {
    throw new TypeError(`${helper}: redirectTo must be a path such as "/"`);
  }
}

/**
 * A path and query safe to hand back as a same-origin `callbackUrl`, or `undefined`. Only a path
 * on this site passes: an absolute URL, a scheme-relative `//host` or `/\host`, control
 * characters and anything that would resolve to another origin are refused, so neither the
 * request nor a caller's value can point the sign-in's return elsewhere.
 */
export function sameSitePath(value: string): string | undefined {
  if (!value.startsWith("/") || /^\/[/\\]/.test(value)) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) return undefined;
  const base = "http://gatehouse.invalid";
  let parsed: URL;
  try {
    parsed = new URL(value, base);
  } catch {
    return undefined;
  }
  if (parsed.origin !== base) return undefined;
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * The path and query of the page a request asks for, as a `callbackUrl`: the request's own
 * path with any run of leading slashes collapsed (`//evil.example` is a path here, never a
 * host), or `/` when nothing usable is left.
 */
export function requestedPage(request: Request): string {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return "/";
  }
  const path = url.pathname.replace(/^[/\\]+/, "/");
  return sameSitePath(`${path}${url.search}`) ?? "/";
}

/** The sign-in page of `prefix` with `callbackUrl` set to `page` (a same-site path). */
export function signInLocation(prefix: string, page: string | undefined): string {
  const signIn = `${prefix}/signin`;
  return page === undefined ? signIn : `${signIn}?callbackUrl=${encodeURIComponent(page)}`;
}
