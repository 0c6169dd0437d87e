/**
 * Passkeys from the app's own pages: the WebAuthn ceremony in the browser, between the auth
 * route's `webauthn-options/<provider>` (the options and a sealed challenge cookie) and its
 * `callback/<provider>` (the browser's answer). `@simplewebauthn/browser` is loaded only when a
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

type Browser = typeof import("@simplewebauthn/browser");
let browserModule: Promise<Browser> | undefined;

/** `@simplewebauthn/browser`, imported on first use only. */
function webauthnBrowser(): Promise<Browser> {
  browserModule ??= import("@simplewebauthn/browser");
  browserModule.catch(() => {
    browserModule = undefined;
  });
  return browserModule;
}

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
  action: PasskeyAction,
  options: PasskeyOptions,
): Promise<SignInResult | undefined> {
  const { provider = "passkey", redirectTo, callbackUrl, redirect = true, basePath } = options;
  const base = basePathOf(basePath);
  const location = browserLocation();
  const id = encodeURIComponent(provider);
  const [browser, answer] = await Promise.all([
    webauthnBrowser(),
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
  const response =
    action === "authenticate"
      ? await browser.startAuthentication({
          optionsJSON: body.options as Parameters<Browser["startAuthentication"]>[0]["optionsJSON"],
        })
      : await browser.startRegistration({
          optionsJSON: body.options as Parameters<Browser["startRegistration"]>[0]["optionsJSON"],
        });
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
 * `{ ok, error, code, status, url }`, as {@link signIn}'s does; by default the browser goes to
 * `redirectTo` (the current page). Rejects with the browser's error (`NotAllowedError`) when the
 * person cancels.
 *
 * @example
 * ```ts
 * import { registerPasskey } from "@gatehousejs/solid-start/client";
 *
 * const result = await registerPasskey({ redirect: false });
 * if (result.ok) console.log("Passkey added");
 * ```
 */
export async function registerPasskey(
  options: PasskeyOptions & { redirect: false },
): Promise<SignInResult>;
export async function registerPasskey(options?: PasskeyOptions): Promise<SignInResult | undefined>;
export async function registerPasskey(
  options: PasskeyOptions = {},
): Promise<SignInResult | undefined> {
  return passkeyCeremony("register", options);
}
