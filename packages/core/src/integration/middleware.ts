/**
 * A middleware for protected pages: signed-out visitors of protected paths are sent elsewhere
 * before any page renders. The framework decides where it runs (SolidStart's `onRequest`) and
 * which paths are its static assets.
 */
import { type IntegrationConfig, normalizePrefix } from "./config.js";
import { appendCookies, type ResponseHeadersHolder } from "./cookies.js";
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
import { readSession } from "./session.js";

/** The protected paths, and where signed-out visitors go. */
export interface AuthMiddlewareOptions extends SignedOutRedirect {
  /**
   * The protected paths: `"/account"` is that page only (with or without a trailing slash),
   * `"/admin/*"` is `/admin` and every path under it. Matched case-insensitively, and a request
   * is checked when either its path as the router matches it (not decoded: `/admin/..%2Fx` is
   * under `/admin`) or its decoded, resolved path (`/x/..%2Fadmin` is `/admin`) is protected.
   */
  protectedPaths: string[];
}

/** The event a middleware receives, typed by what Gatehouse reads and writes. */
export type AuthMiddlewareEvent = { request: Request } & ResponseHeadersHolder;

/** The handler a middleware runs for each request. */
export type AuthMiddlewareHandler = (event: AuthMiddlewareEvent) => Promise<Response | undefined>;

/** What the framework tells {@link createAuthMiddleware}. */
export interface AuthMiddlewareFramework {
  /** The helper's public name, for the messages of a mistake in its options. */
  name: string;
  /**
   * Where the framework serves its build output and internal endpoints, never pages
   * (SolidStart: `/_build`, `/_server`). Paths under them are not checked.
   */
  assetRoots: readonly string[];
}

/**
 * A middleware handler for protected pages. For a request to a protected path it reads the
 * session (as `readSession`) and, when there is none or it has no `user`, answers a `302`
 * redirect: to `/` by default, to `redirectTo`, or with `signIn: true` to the sign-in page with
 * `callbackUrl` set to the requested path and query. Otherwise it returns `undefined` and the
 * page renders, with any re-issued session cookie on its response.
 *
 * It never reads the session for the auth routes (the config's `prefix`), for static assets
 * (under the framework's `assetRoots`, and files such as `.js`, `.css`, `.png`, `.ico`, `.svg`,
 * `.woff2`, `.map`) or for paths that are not protected. The asset rule wins over a protected
 * pattern: a protected route with a dynamic last segment (`/admin/[file]`) is not checked for
 * `/admin/x.png`, so keep data behind a session check too.
 *
 * Throws a `TypeError` when `redirectTo` and `signIn` are both set, and when `redirectTo` is
 * itself protected (signed-out visitors would loop).
 */
export function createAuthMiddleware(
  config: IntegrationConfig,
  options: AuthMiddlewareOptions,
  framework: AuthMiddlewareFramework,
): AuthMiddlewareHandler {
  assertSignedOutRedirect(framework.name, options);
  const patterns = options.protectedPaths.map(compilePattern);
  const mount = normalizePrefix(config.prefix);
  const prefix = canonicalPath(mount);
  const roots = [...framework.assetRoots];
  const checkedAs = (path: string) =>
    !underCanonical(path, prefix) &&
    !isAssetPath(path, roots) &&
    patterns.some((pattern) => matchesPattern(path, pattern));
  // Either spelling being protected is enough: see ./paths.ts.
  const checked = (pathname: string) =>
    checkedAs(routerPath(pathname)) || checkedAs(canonicalPath(pathname));
  const target = options.redirectTo ?? "/";
  // The sign-in page is under the prefix, which is never checked: only a fixed target can loop.
  if (!options.signIn && target.startsWith("/") && !target.startsWith("//")) {
    if (checked(new URL(target, "http://localhost").pathname)) {
      throw new TypeError(
        `${framework.name}: redirectTo (${target}) is itself protected; signed-out visitors would loop`,
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
    const session = await readSession(event.request, config, (set) => {
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
