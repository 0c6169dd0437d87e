/**
 * The error the browser client throws when the auth route refuses a request it cannot turn into a
 * result (a sign-out the session store could not complete, a sessions call while the store is
 * down): the HTTP status, the route's stable `error` value, and when to try again.
 */

/**
 * A refusal of the auth route, with its stable error value.
 *
 * @example
 * ```ts
 * import { AuthRouteError, signOut } from "@gatehousejs/core/client";
 *
 * try {
 *   await signOut({ redirectTo: "/" });
 * } catch (error) {
 *   if (error instanceof AuthRouteError && error.error === "SessionStoreUnavailable") {
 *     alert(`Still signed in: try again in ${error.retryAfter ?? 5} seconds.`);
 *   }
 * }
 * ```
 */
export class AuthRouteError extends Error {
  override readonly name = "AuthRouteError";
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's `error` value (`SessionStoreUnavailable`, `RateLimited`, …), when it has one. */
  readonly error: string | undefined;
  /** Seconds to wait before trying again, from the answer (`retryAfter` or `Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor(
    what: string,
    answer: { status: number; error: string | undefined; retryAfter: number | undefined },
  ) {
    const value = answer.error === undefined ? "" : ` (${answer.error})`;
    super(`The auth route answered ${answer.status}${value} ${what}`);
    this.status = answer.status;
    this.error = answer.error;
    this.retryAfter = answer.retryAfter;
  }
}

/** Seconds from a JSON `retryAfter` or a `Retry-After` header of whole seconds. */
export function retryAfterOf(response: Response, body: { retryAfter?: unknown } | null) {
  if (typeof body?.retryAfter === "number" && Number.isFinite(body.retryAfter)) {
    return body.retryAfter;
  }
  const header = response.headers.get("retry-after");
  return header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
}
