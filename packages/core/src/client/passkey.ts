/**
 * Passkeys from the app's own pages: the WebAuthn ceremony in the browser, between the auth
 * route's `webauthn-options/<provider>` (the options and a sealed challenge cookie) and its
 * `callback/<provider>` (the browser's answer). The browser side of WebAuthn is a library the
 * app or its framework integration hands in (`@simplewebauthn/browser`), loaded only when a
 * passkey is used, so a page that signs in with a password never downloads it.
 */
import { basePathOf } from "./base-path.js";
import {
  browserLocation,
  fetchCsrfToken,
  navigate,
  postForm,
  type SignInResult,
  sessionChanged,
} from "./transport.js";

/** The ids of core's WebAuthn providers, which `signIn(id)` runs as a passkey ceremony. */
export const WEBAUTHN_PROVIDER_IDS: readonly string[] = ["passkey", "webauthn"];

/** The ceremony: sign in with a passkey, or make a new one. */
export type PasskeyAction = "authenticate" | "register";

/** Options of {@link registerPasskey}, and of a passkey `signIn`. */
export interface PasskeyOptions {
  /** The WebAuthn provider's id. Default `"passkey"`. */
  provider?: string;
  /** Where to land afterwards. Wins over `callbackUrl`. Default: the current page. */
  redirectTo?: string;
  /** Where to land afterwards (the protocol's name for it). */
  callbackUrl?: string;
  /** `false`: stay on the page and resolve with the outcome. Default `true`. */
  redirect?: boolean;
  /** The auth route's base path for this call. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
}

/**
 * The two calls of a WebAuthn browser library that the ceremony makes, as
 * `@simplewebauthn/browser` (version 13 or later) names them: each takes the options the auth
 * route sent (`optionsJSON`), prompts the person, and resolves with the answer to post back.
 */
export interface WebAuthnBrowser {
  startAuthentication(options: { optionsJSON: never }): Promise<unknown>;
  startRegistration(options: { optionsJSON: never }): Promise<unknown>;
}

/**
 * Loads the {@link WebAuthnBrowser} library, on the first passkey ceremony:
 * `() => import("@simplewebauthn/browser")`.
 */
export type LoadWebAuthnBrowser = () => Promise<WebAuthnBrowser>;

function refused(status: number, error: string): SignInResult {
  return { ok: false, error, code: undefined, status, url: null };
}

/**
 * Runs one WebAuthn ceremony against the auth route: options from
 * `<basePath>/webauthn-options/<provider>?action=`, the browser's prompt, then the answer posted
 * to `<basePath>/callback/<provider>` with the CSRF token. Rejects with the browser's error when
 * the person cancels or no authenticator can answer.
 */
export async function passkeyCeremony(
  load: LoadWebAuthnBrowser | undefined,
  action: PasskeyAction,
  options: PasskeyOptions,
): Promise<SignInResult | undefined> {
  // Before any request: the options call would set a challenge cookie for nothing.
  if (!load) {
    throw new TypeError(
      'Passkeys need a WebAuthn browser library: take signIn from withPasskeys(() => import("@simplewebauthn/browser"))',
    );
  }
  const { provider = "passkey", redirectTo, callbackUrl, redirect = true, basePath } = options;
  const base = basePathOf(basePath);
  const location = browserLocation();
  const id = encodeURIComponent(provider);
  const [browser, answer] = await Promise.all([
    load(),
    fetch(`${base}/webauthn-options/${id}?action=${action}`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    }),
  ]);
  const body = (await answer.json().catch(() => null)) as {
    action?: unknown;
    options?: unknown;
    error?: unknown;
  } | null;
  if (!answer.ok || body?.action !== action || typeof body.options !== "object") {
    return refused(answer.status, typeof body?.error === "string" ? body.error : "Error");
  }
  // The route's options are the library's input as they stand: it checks them itself.
  const optionsJSON = body.options as never;
  const response =
    action === "authenticate"
      ? await browser.startAuthentication({ optionsJSON })
      : await browser.startRegistration({ optionsJSON });
  const outcome = await postForm(`${base}/callback/${id}`, {
    action,
    data: JSON.stringify(response),
    csrfToken: await fetchCsrfToken(base),
    callbackUrl: redirectTo ?? callbackUrl ?? location.href,
  });
  if (outcome.url === undefined) return refused(outcome.status, outcome.error ?? "Error");
  const error = new URL(outcome.url, location.href).searchParams.get("error") ?? undefined;
  if (redirect) {
    navigate(outcome.url);
    return undefined;
  }
  if (error === undefined) sessionChanged();
  return {
    ok: outcome.ok && error === undefined,
    error,
    code: undefined,
    status: outcome.status,
    url: error === undefined ? outcome.url : null,
  };
}

/**
 * Adds a passkey to the signed-in user's account, from any page of the app: the browser asks
 * the person to create one, and the auth route stores it on their account (a new session is
 * issued, as after any sign-in). Signed out, it creates a new account that has only this passkey
 * (no email address), as the built-in page's "Create a passkey" does.
 *
 * With `redirect: false` the page stays and the promise resolves with
 * `{ ok, error, code, status, url }`, as `signIn`'s does; by default the browser goes to
 * `redirectTo` (the current page). Rejects with the browser's error (`NotAllowedError`) when the
 * person cancels. Made by {@link withPasskeys}, which hands it the WebAuthn browser library.
 */
export interface RegisterPasskey {
  (options: PasskeyOptions & { redirect: false }): Promise<SignInResult>;
  (options?: PasskeyOptions): Promise<SignInResult | undefined>;
}
