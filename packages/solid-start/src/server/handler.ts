/**
 * `SolidAuth()`: the GET and POST handlers of the catch-all auth route.
 */
import { createAuthRoute, type IntegrationConfig } from "@gatehousejs/core/integration";

/**
 * The configuration of {@link SolidAuth} and the session helpers: core's `AuthConfig` without
 * `basePath` (it comes from `prefix`) and without `raw`.
 */
export type SolidAuthConfig = IntegrationConfig;

/**
 * What SolidStart hands a route handler, typed by the members Gatehouse reads. SolidStart 1.x
 * (vinxi) and 2.x events both fit.
 */
export interface SolidAuthEvent {
  request: Request;
  /**
   * The socket's peer address, as SolidStart reads it. Core's rate limits use it when the
   * configuration sets neither `clientAddress` nor `trustedProxies` and the peer is a public
   * address, or outside production a loopback one (docs/rate-limits.md).
   */
  clientAddress?: string | undefined;
}

/** A handler of the auth route: a `Response`, or `undefined` for a path outside the prefix. */
export type SolidAuthHandler = (event: SolidAuthEvent) => Promise<Response | undefined>;

/** The handlers {@link SolidAuth} returns, to export from the route file. */
export interface SolidAuthHandlers {
  GET: SolidAuthHandler;
  POST: SolidAuthHandler;
}

/**
 * The handlers of the auth route `src/routes/api/auth/[...solidauth].ts`.
 *
 * Every request whose path is the prefix or under it goes to Gatehouse, which answers each
 * action of the protocol (`providers`, `csrf`, `session`, `signin`, `signout`, `callback`,
 * `error`, `verify-request`, `webauthn-options`, `sessions`, `sessions/revoke`,
 * `backchannel-logout`, `signup`, `verify-email`, `forgot-password`, `reset-password`,
 * `change-password`, `change-email`, `set-password`, `remove-password`, `two-factor`,
 * `two-factor/enroll`, `two-factor/confirm`, `two-factor/backup-codes`, `two-factor/disable`,
 * `two-factor/challenge`, `two-factor/forget-browser`, `passkeys`, `passkeys/remove`) and refuses
 * an unknown one with its `400 UnknownAction`. A request outside the prefix resolves to
 * `undefined`, so SolidStart goes on to its other routes.
 *
 * The core configuration is built once, on the first request, from `config` and the environment
 * (see {@link SolidAuthConfig}); build `config` once, at module level, and share it with
 * `getSession`.
 *
 * @example
 * ```ts
 * // src/routes/api/auth/[...solidauth].ts
 * import { SolidAuth, type SolidAuthConfig } from "@gatehousejs/solid-start";
 * import Credentials from "@gatehousejs/solid-start/providers/credentials";
 *
 * export const authConfig: SolidAuthConfig = {
 *   providers: [Credentials({ authorize: () => null })],
 * };
 *
 * export const { GET, POST } = SolidAuth(authConfig);
 * ```
 */
export function SolidAuth(config: SolidAuthConfig): SolidAuthHandlers {
  const handle: SolidAuthHandler = createAuthRoute<SolidAuthEvent>(config, {
    clientAddress: (event) => event.clientAddress,
  });
  return { GET: handle, POST: handle };
}
