/**
 * The error the browser client throws when the auth route refuses a request it cannot turn into a
 * result (a sign-out the session store could not complete, a sessions call while the store is
 * down, a password the policy refuses): the HTTP status, the route's stable `error` value, what
 * the route told the user, and when to try again.
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
  /**
   * What the route's answer says to the user (its `message`), when it says something: for a
   * password the policy refuses, what to change ("Use at least 15 characters: …"). Written by
   * the server, never holding what was typed.
   */
  readonly detail: string | undefined;

  constructor(
    what: string,
    answer: {
      status: number;
      error: string | undefined;
      retryAfter: number | undefined;
      detail?: string | undefined;
    },
  ) {
    const value = answer.error === undefined ? "" : ` (${answer.error})`;
    const detail = answer.detail === undefined ? "" : `: ${answer.detail}`;
    super(`The auth route answered ${answer.status}${value} ${what}${detail}`);
    this.status = answer.status;
    this.error = answer.error;
    this.retryAfter = answer.retryAfter;
    this.detail = answer.detail;
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
