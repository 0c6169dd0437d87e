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
export function clientSession(
  config: ResolvedConfig,
  params: SessionCallbackParams,
): Session | null | Promise<Session | null> {
  const failed = (cause: unknown): null => {
    const Failure = params.strategy === "jwt" ? JWTSessionError : SessionTokenError;
    config.logger.error(new Failure("The session callback threw", { cause }));
    return null;
  };
  let result: ReturnType<typeof config.callbacks.session>;
  try {
    result = config.callbacks.session(params);
  } catch (cause) {
    return failed(cause);
  }
  // A synchronous callback (the default one) costs no extra turn of the event loop.
  if (isThenable(result)) return Promise.resolve(result).then(forClientOrNull, failed);
  return forClientOrNull(result);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

function forClientOrNull(result: SessionCallbackResult | null | undefined): Session | null {
  return result === null || result === undefined ? null : forClient(result);
}
