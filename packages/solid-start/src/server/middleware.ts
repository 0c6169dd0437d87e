/**
 * `authMiddleware()`: an `onRequest` handler for SolidStart's `createMiddleware` that sends
 * signed-out visitors of protected paths elsewhere before any page renders.
 */
import { normalizePrefix, type SolidAuthConfig } from "./config.js";
import {
  canonicalPath,
  compilePattern,
  isAssetPath,
  matchesPattern,
  routerPath,
  underCanonical,
} from "./paths.js";
import {
  assertSignedOutRedirect,
  redirectResponse,
  requestedPage,
  type SignedOutRedirect,
  signInLocation,
} from "./redirect.js";
import { appendCookies, type ResponseHeadersHolder } from "./request-event.js";
import { sessionFor } from "./session.js";

/** Options of {@link authMiddleware}: the protected paths, and where signed-out visitors go. */
export interface AuthMiddlewareOptions extends SignedOutRedirect {
  /**
   * The protected paths: `"/account"` is that page only (with or without a trailing slash),
   * `"/admin/*"` is `/admin` and every path under it. Matched case-insensitively, and a request
   * is checked when either its path as the router matches it (not decoded: `/admin/..%2Fx` is
   * under `/admin`) or its decoded, resolved path (`/x/..%2Fadmin` is `/admin`) is protected.
   */
  protectedPaths: string[];
}

/** The event a SolidStart middleware receives, typed by what Gatehouse reads and writes. */
export type AuthMiddlewareEvent = { request: Request } & ResponseHeadersHolder;

/** The `onRequest` handler {@link authMiddleware} returns. */
export type AuthMiddlewareHandler = (event: AuthMiddlewareEvent) => Promise<Response | undefined>;

/**
 * An `onRequest` handler for `createMiddleware` in `src/middleware.ts`. For a request to a
 * protected path it reads the session (as {@link getSession}) and, when there is none or it has
 * no `user`, answers a `302` redirect: to `/` by default, to `redirectTo`, or with `signIn: true`
 * to the sign-in page with `callbackUrl` set to the requested path and query. Otherwise it
 * returns `undefined` and the page renders, with any re-issued session cookie on its response.
 *
 * It never reads the session for the auth routes (the config's `prefix`), for static assets
 * (`/_build/…`, `/_server…`, files such as `.js`, `.css`, `.png`, `.ico`, `.svg`, `.woff2`,
 * `.map`) or for paths that are not protected. The asset rule wins over a protected pattern:
 * a protected route with a dynamic last segment (`/admin/[file]`) is not checked for
 * `/admin/x.png`, so keep data behind {@link requireSession} too.
 *
 * @example
 * ```ts
 * // src/middleware.ts
 * import { authMiddleware, type SolidAuthConfig } from "@gatehousejs/solid-start";
 *
 * declare const authConfig: SolidAuthConfig;
 * export const onRequest = authMiddleware(authConfig, {
 *   protectedPaths: ["/account", "/admin/*"],
 *   // Signed out: to /api/auth/signin?callbackUrl=<the page>, and back after signing in.
 *   signIn: true,
 * });
 * // export default createMiddleware({ onRequest: [onRequest] });
 * ```
 */
export function authMiddleware(
  config: SolidAuthConfig,
  options: AuthMiddlewareOptions,
): AuthMiddlewareHandler {
  assertSignedOutRedirect("authMiddleware", options);
  const patterns = options.protectedPaths.map(compilePattern);
  const mount = normalizePrefix(config.prefix);
  const prefix = canonicalPath(mount);
  const checkedAs = (path: string) =>
    !underCanonical(path, prefix) &&
    !isAssetPath(path) &&
    patterns.some((pattern) => matchesPattern(path, pattern));
  // Either spelling being protected is enough: see ./paths.ts.
  const checked = (pathname: string) =>
    checkedAs(routerPath(pathname)) || checkedAs(canonicalPath(pathname));
  const target = options.redirectTo ?? "/";
  // The sign-in page is under the prefix, which is never checked: only a fixed target can loop.
  if (!options.signIn && target.startsWith("/") && !target.startsWith("//")) {
    if (checked(new URL(target, "http://localhost").pathname)) {
      throw new TypeError(
        `authMiddleware: redirectTo (${target}) is itself protected; signed-out visitors would loop`,
      );
    }
  }
  return async (event) => {
    let pathname: string;
    try {
      pathname = new URL(event.request.url).pathname;
    } catch {
      return undefined;
    }
    if (!checked(pathname)) return undefined;
    let cookies: string[] = [];
    const session = await sessionFor(event.request, config, (set) => {
      cookies = set;
    });
    if (!session?.user) {
      const headers = new Headers();
      for (const cookie of cookies) headers.append("Set-Cookie", cookie);
      const location = options.signIn
        ? signInLocation(mount, requestedPage(event.request))
        : target;
      return redirectResponse(location, headers);
    }
    appendCookies(event, cookies);
    return undefined;
  };
}
