/**
 * The `session` callback, run the same way under both strategies: what it returns is what the
 * client sees, and a callback that throws means "no session", logged once.
 */
import type { ResolvedConfig } from "../config.js";
import { JWTSessionError, SessionTokenError } from "../errors.js";
import type { SessionCallbackParams, SessionCallbackResult } from "../types/config.js";
import type { Session } from "../types/models.js";

/** A `Date` expiry (the database strategy's) becomes the ISO string the client receives. */
function forClient(result: SessionCallbackResult): Session {
  const { expires } = result;
  return expires instanceof Date
    ? { ...result, expires: expires.toISOString() }
    : (result as Session);
}

/**
 * The session the client sees, or `null` when the callback returned nothing or threw. A throw is
 * logged as the strategy's session error (`JWTSessionError` or `SessionTokenError`, as Auth.js
 * does) and never ends the request with an error page.
 */
export async function clientSession(
  config: ResolvedConfig,
  params: SessionCallbackParams,
): Promise<Session | null> {
  try {
    const result = await config.callbacks.session(params);
    return result === null || result === undefined ? null : forClient(result);
  } catch (cause) {
    const Failure = params.strategy === "jwt" ? JWTSessionError : SessionTokenError;
    config.logger.error(new Failure("The session callback threw", { cause }));
    return null;
  }
}
