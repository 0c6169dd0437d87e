/**
 * `authMiddleware()`: an `onRequest` handler for SolidStart's `createMiddleware` that sends
 * signed-out visitors of protected paths elsewhere before any page renders.
 */
import {
  type AuthMiddlewareHandler,
  type AuthMiddlewareOptions,
  createAuthMiddleware,
} from "@gatehousejs/core/integration";
import type { SolidAuthConfig } from "./handler.js";

/** Where SolidStart serves its build output (`/_build/…`) and server functions (`/_server…`). */
const SOLID_START_ASSET_ROOTS = ["/_build", "/_server"];

/**
 * An `onRequest` handler for `createMiddleware` in `src/middleware.ts`. For a request to a
 * protected path it reads the session (as `getSession`) and, when there is none or it has
 * no `user`, answers a `302` redirect: to `/` by default, to `redirectTo`, or with `signIn: true`
 * to the sign-in page with `callbackUrl` set to the requested path and query. Otherwise it
 * returns `undefined` and the page renders, with any re-issued session cookie on its response.
 *
 * It never reads the session for the auth routes (the config's `prefix`), for static assets
 * (`/_build/…`, `/_server…`, files such as `.js`, `.css`, `.png`, `.ico`, `.svg`, `.woff2`,
 * `.map`) or for paths that are not protected. The asset rule wins over a protected pattern:
 * a protected route with a dynamic last segment (`/admin/[file]`) is not checked for
 * `/admin/x.png`, so keep data behind `requireSession` too.
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
  return createAuthMiddleware(config, options, {
    name: "authMiddleware",
    assetRoots: SOLID_START_ASSET_ROOTS,
  });
}
