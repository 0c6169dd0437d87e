/**
 * `getSession()`: what `GET <basePath>/session` answers, read in-process for framework
 * integrations (a server-rendered page, a middleware). No synthetic request, no JSON round trip:
 * the request's cookies go straight to the session check the action itself runs, with the same
 * callbacks, events and host rules.
 */
import { configLogger, resolveConfig } from "./config.js";
import { Context } from "./context.js";
import { serializeCookie } from "./cookies.js";
import { AuthError } from "./errors.js";
import { partsOf } from "./feature.js";
import { type SessionRequestInput, sessionRequest } from "./request.js";
import { checkSession } from "./session/index.js";
import type { AuthConfig } from "./types/config.js";
import type { Session } from "./types/models.js";

/** Options of {@link getSession}. */
export interface GetSessionOptions {
  /**
   * Receives the `Set-Cookie` header values of the check, when it has any: a re-issued session
   * cookie (rolling expiry, `updateAge`), or the deletion of one that is invalid or expired.
   * Forward them on the response so the session keeps rolling. Not called when there are none.
   */
  onCookies?: (setCookies: string[]) => void;
}

/**
 * The session of a request, exactly as `GET <basePath>/session` would return it, or `null`.
 * Only the request's `url` and `headers` are read: a `Request`, or an object with those two.
 *
 * A request for another host than `config.url` (when set) has no session here (one `warn` log
 * line), where the endpoint would answer 400. A broken configuration, or a failure of the
 * adapter, throws its `AuthError` (logged once), where the endpoint would answer an error.
 *
 * @example
 * ```ts
 * import { getSession } from "@gatehousejs/core";
 *
 * const config = { secret: "a-long-random-secret-of-32-chars!", trustHost: true, providers: [] };
 * const request = new Request("http://localhost:3000/", { headers: { cookie: "" } });
 * const headers = new Headers();
 * const session = await getSession(request, config, {
 *   onCookies: (cookies) => {
 *     for (const cookie of cookies) headers.append("Set-Cookie", cookie);
 *   },
 * });
 * // session === null: the request carries no session cookie
 * ```
 */
export async function getSession(
  request: SessionRequestInput,
  config: AuthConfig,
  options?: GetSessionOptions,
): Promise<Session | null> {
  let resolved: ReturnType<typeof resolveConfig>;
  try {
    resolved = resolveConfig(config);
    partsOf(resolved);
  } catch (error) {
    configLogger(config).error(error as Error);
    throw error;
  }
  const req = sessionRequest(request, resolved);
  if (!req) return null;
  const ctx = new Context(req, resolved);
  let check: Awaited<ReturnType<typeof checkSession>>;
  try {
    check = await checkSession(ctx);
  } catch (caught) {
    const error =
      caught instanceof AuthError
        ? caught
        : new AuthError("An unexpected error ended the session check", { cause: caught });
    resolved.logger.error(error);
    throw error;
  }
  const cookies = [...ctx.setCookies, ...check.cookies];
  if (cookies.length > 0 && options?.onCookies) options.onCookies(cookies.map(serializeCookie));
  return check.session;
}
