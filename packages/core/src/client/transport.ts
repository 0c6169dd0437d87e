/**
 * The requests of the browser client: the CSRF token, and form and JSON posts that ask for the
 * redirect target as JSON (`X-Auth-Return-Redirect: 1`) instead of following it.
 */

import { retryAfterOf } from "./errors.js";

/** The `location` the client reads and navigates: the browser's. */
export function browserLocation(): Location {
  const location = (globalThis as { location?: Location }).location;
  if (!location) throw new Error("The Gatehouse client runs in a browser (no location here)");
  return location;
}

/** Fetches the CSRF token of the auth route (which also sets its cookie). */
export async function fetchCsrfToken(basePath: string): Promise<string> {
  const response = await fetch(`${basePath}/csrf`, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  const body = (await response.json().catch(() => null)) as { csrfToken?: unknown } | null;
  if (!response.ok || typeof body?.csrfToken !== "string") {
    throw new Error(`The auth route answered ${response.status} for its CSRF token`);
  }
  return body.csrfToken;
}

/** What `signIn` resolves to with `redirect: false`. */
export interface SignInResult {
  /** True when the HTTP answer was a success and carries no `error`. */
  ok: boolean;
  /** The `error` the server sent back (`CredentialsSignin`, `AccessDenied`, …), if any. */
  error: string | undefined;
  /** The `code` of a credentials refusal (`credentials` by default), if any. */
  code: string | undefined;
  /** The HTTP status of the answer. */
  status: number;
  /** Where the server would have sent the browser; `null` on an error. */
  url: string | null;
  /**
   * `true` when the first factor was accepted but the user's second factor holds the sign-in
   * (two-factor sign-in, docs/two-factor.md): no session exists yet, and `url` is the challenge
   * page, `<basePath>/two-factor/challenge`. Finish it there, or on a page of the app with
   * `verifyTwoFactor({ code })`. Absent otherwise.
   */
  twoFactorRequired?: true;
}

/** The outcome of a form post: the HTTP status, and where the server would have redirected. */
export interface PostOutcome {
  status: number;
  ok: boolean;
  /** The redirect target from the JSON answer, when it has one. */
  url: string | undefined;
  /** The `error` of a JSON answer without a `url` (a refused request). */
  error: string | undefined;
  /** Seconds to wait before trying again, when the answer says. */
  retryAfter: number | undefined;
}

/** POSTs a form to the auth route with `X-Auth-Return-Redirect: 1` and reads `{ url }`. */
export async function postForm(url: string, form: Record<string, string>): Promise<PostOutcome> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Auth-Return-Redirect": "1",
      Accept: "application/json",
    },
    body: new URLSearchParams(form),
    credentials: "same-origin",
  });
  const body = (await response.json().catch(() => null)) as {
    url?: unknown;
    error?: unknown;
    retryAfter?: unknown;
  } | null;
  return {
    status: response.status,
    ok: response.ok,
    url: typeof body?.url === "string" ? body.url : undefined,
    error: typeof body?.error === "string" ? body.error : undefined,
    retryAfter: retryAfterOf(response, body),
  };
}

/** The answer of {@link postJson}: its status, its body when that is a JSON object, the wait. */
export interface JsonAnswer {
  status: number;
  ok: boolean;
  body: Record<string, unknown> | null;
  /** Seconds to wait before trying again, when the answer says. */
  retryAfter: number | undefined;
}

/**
 * POSTs `body` as JSON to the auth route, asking for JSON back. With `X-Auth-Return-Redirect: 1`
 * a redirect (where a signed-in browser goes next, or the error page of a refusal) comes back as
 * `{ url }` rather than being followed.
 */
export async function postJson(url: string, body: Record<string, unknown>): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Auth-Return-Redirect": "1",
      Accept: "application/json",
    },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const parsed: unknown = await response.json().catch(() => null);
  const object =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  return {
    status: response.status,
    ok: response.ok,
    body: object,
    retryAfter: retryAfterOf(response, object),
  };
}

/**
 * Navigates to `url`. Setting `href` to a URL that differs from the current one only by its
 * hash would just scroll: reload then, so the page shows the new session.
 */
export function navigate(url: string): void {
  const location = browserLocation();
  const current = new URL(location.href);
  const next = new URL(url, current);
  location.href = next.href;
  if (next.hash !== "" && next.href.split("#")[0] === current.href.split("#")[0]) {
    location.reload();
  }
}

/** Listeners told when a sign-in or sign-out changed the session without a navigation. */
const listeners = new Set<() => void>();

/** Subscribes to session changes made by this client; returns the unsubscribe function. */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every subscriber that the session may have changed. */
export function sessionChanged(): void {
  for (const listener of [...listeners]) listener();
}
