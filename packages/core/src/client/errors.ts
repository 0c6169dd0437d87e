/**
 * The error the browser client throws when the auth route refuses a request it cannot turn into a
 * result (a sign-out the session store could not complete, a sessions call while the store is
 * down, a password the policy refuses, a sensitive action that needs a fresh sign-in): the HTTP
 * status, the route's stable `error` value, what the route told the user, when to try again, and
 * where to sign in again.
 */

/**
 * A refusal of the auth route, with its stable error value.
 *
 * A sensitive action (`changePassword`, `changeEmail`, `removePassword`, `revokeSessions` with
 * `{ others: true }` or `{ all: true }`) of a user with two-factor sign-in on needs a sign-in
 * from the last ten minutes: otherwise it is refused with `error: "ReauthenticationRequired"`
 * (403) and {@link AuthRouteError.signInUrl}, the sign-in page, which comes back to the
 * action's page (its `callbackUrl`) once the user signed in again.
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
 *
 * @example A sensitive action that asks for a fresh sign-in
 * ```ts
 * import { AuthRouteError, changePassword } from "@gatehousejs/core/client";
 *
 * try {
 *   await changePassword({ currentPassword, newPassword });
 * } catch (error) {
 *   if (error instanceof AuthRouteError && error.signInUrl) location.assign(error.signInUrl);
 *   else throw error;
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
  /**
   * Where to sign in again, when the answer names it: the absolute URL of the sign-in page with a
   * `callbackUrl` that comes back after the sign-in (a `ReauthenticationRequired` refusal of a
   * sensitive action). It holds no token. Not part of {@link Error.message}.
   */
  readonly signInUrl: string | undefined;

  constructor(
    what: string,
    answer: {
      status: number;
      error: string | undefined;
      retryAfter: number | undefined;
      detail?: string | undefined;
      signInUrl?: string | undefined;
    },
  ) {
    const value = answer.error === undefined ? "" : ` (${answer.error})`;
    const detail = answer.detail === undefined ? "" : `: ${answer.detail}`;
    super(`The auth route answered ${answer.status}${value} ${what}${detail}`);
    this.status = answer.status;
    this.error = answer.error;
    this.retryAfter = answer.retryAfter;
    this.detail = answer.detail;
    this.signInUrl = answer.signInUrl;
  }
}

/**
 * The refusal a JSON answer carries: its body's `error` (or the `error` given: the one a redirect
 * to an error page names), its `message` as `detail`, and its `signInUrl` when that is an
 * absolute http(s) URL.
 */
export function refusalOf(
  what: string,
  answer: { status: number; retryAfter: number | undefined },
  body: Record<string, unknown>,
  error: string | undefined = typeof body.error === "string" ? body.error : undefined,
): AuthRouteError {
  return new AuthRouteError(what, {
    status: answer.status,
    error,
    retryAfter: answer.retryAfter,
    detail: typeof body.message === "string" ? body.message : undefined,
    signInUrl: signInUrlOf(body.signInUrl),
  });
}

/** `value` when it is an absolute http(s) URL (never a `javascript:` one to navigate to). */
function signInUrlOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const { protocol } = new URL(value);
    return protocol === "https:" || protocol === "http:" ? value : undefined;
  } catch {
    return undefined;
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
