/**
 * `signIn()` and `signOut()` for the browser.
 */
import { basePathOf } from "./base-path.js";
import { AuthRouteError } from "./errors.js";
import {
  type LoadWebAuthnBrowser,
  type PasskeyOptions,
  passkeyCeremony,
  type RegisterPasskey,
  WEBAUTHN_PROVIDER_IDS,
} from "./passkey.js";
import {
  browserLocation,
  fetchCsrfToken,
  navigate,
  postForm,
  type SignInResult,
  sessionChanged,
} from "./transport.js";

/**
 * The ids of providers whose form posts straight to their callback: core's credentials and
 * password providers, under their default ids.
 */
const FORM_PROVIDER_IDS: readonly string[] = ["credentials", "password"];

/**
 * How `signIn` reaches a provider: a form post to `callback/<id>`, the passkey ceremony, or a
 * form post to `signin/<id>`.
 */
type SignInRoute = "callback" | "passkey" | "signin";

/** The route of a provider, by its `type` in the auth route's provider list. */
function routeOfType(type: unknown): SignInRoute {
  if (type === "credentials" || type === "password") return "callback";
  if (type === "webauthn") return "passkey";
  return "signin";
}

/**
 * The route of each provider in the body of `GET <basePath>/providers`
 * (`{ [id]: { id, name, type, … } }`), or `undefined` when the body is not such a list.
 */
function routesOfProviderList(body: unknown): ReadonlyMap<string, SignInRoute> | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const routes = new Map<string, SignInRoute>();
  for (const [id, entry] of Object.entries(body)) {
    if (typeof entry !== "object" || entry === null) continue;
    routes.set(id, routeOfType((entry as { type?: unknown }).type));
  }
  return routes;
}

/** Asks the auth route for its provider list; `undefined` when it could not be had. */
async function fetchProviderRoutes(
  base: string,
): Promise<ReadonlyMap<string, SignInRoute> | undefined> {
  try {
    const response = await fetch(`${base}/providers`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (!response.ok) return undefined;
    return routesOfProviderList(await response.json());
  } catch {
    return undefined;
  }
}

/**
 * The provider list of each base path, asked for once. A list that could not be had is
 * forgotten, so a later call asks again; the promise never rejects.
 */
const providerRoutes = new Map<string, Promise<ReadonlyMap<string, SignInRoute> | undefined>>();

function providerRoutesOf(base: string): Promise<ReadonlyMap<string, SignInRoute> | undefined> {
  const cached = providerRoutes.get(base);
  if (cached) return cached;
  const pending = fetchProviderRoutes(base);
  providerRoutes.set(base, pending);
  void pending.then((routes) => {
    if (routes === undefined && providerRoutes.get(base) === pending) providerRoutes.delete(base);
  });
  return pending;
}

/**
 * The route of `provider`: core's default ids without a request; any other id by its type in
 * the provider list, else (no list, or not in it) `signin`, where the server answers for it.
 */
async function routeOf(provider: string, base: string): Promise<SignInRoute> {
  if (FORM_PROVIDER_IDS.includes(provider)) return "callback";
  if (WEBAUTHN_PROVIDER_IDS.includes(provider)) return "passkey";
  return (await providerRoutesOf(base))?.get(provider) ?? "signin";
}

/**
 * Options of {@link signIn}. Other fields (an email provider's `email`, the credentials of a
 * credentials provider, a password provider's `email` and `password`) are posted with the form,
 * as strings.
 */
export interface SignInOptions {
  /** Where to land after signing in. Wins over `callbackUrl`. Default: the current page. */
  redirectTo?: string;
  /** Where to land after signing in (the protocol's name for it). */
  callbackUrl?: string;
  /**
   * `false`: stay on the page and resolve with the outcome (credentials and email providers).
   * Default `true`: navigate to where the server sends the browser.
   */
  redirect?: boolean;
  /** The auth route's base path for this call. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
  [field: string]: string | number | boolean | undefined;
}

/** Extra query parameters of the authorization request (an OAuth provider's `prompt`, …). */
export type SignInAuthorizationParams =
  | string
  | string[][]
  | Record<string, string>
  | URLSearchParams;

/** Options of {@link signOut}. */
export interface SignOutOptions {
  /** Where to land after signing out. Wins over `callbackUrl`. Default: the current page. */
  redirectTo?: string;
  /** Where to land after signing out (the protocol's name for it). */
  callbackUrl?: string;
  /** `false`: stay on the page and resolve with the target URL. Default `true`. */
  redirect?: boolean;
  /** The auth route's base path for this call. */
  basePath?: string;
  /**
   * `true`: sign out of the identity provider too (RP-initiated logout: the server answers with
   * the provider's end-session URL, which comes back to `redirectTo` afterwards). `false`: this
   * app only, even when the provider makes federated sign-out its default. Default: the
   * provider's choice. Sent as the `federated` field of the form.
   */
  federated?: boolean;
}

/** What {@link signOut} resolves to with `redirect: false`. */
export interface SignOutResult {
  /** Where the server would have sent the browser. */
  url: string;
}

/**
 * Whether `url` is the two-factor challenge of the auth route at `base`: the page a sign-in is
 * sent to when its first factor was accepted and the second is still to come. The path is what
 * counts: the server writes the URL with its own origin, which a proxy may present otherwise.
 */
function isTwoFactorChallenge(url: string, base: string, page: string): boolean {
  const challenge = new URL(`${base}/two-factor/challenge`, page);
  return new URL(url, page).pathname === challenge.pathname;
}

function resultOf(
  outcome: { status: number; ok: boolean; url: string | undefined; error: string | undefined },
  page: string,
  base: string,
): SignInResult {
  if (outcome.url === undefined) {
    return {
      ok: false,
      error: outcome.error ?? "Error",
      code: undefined,
      status: outcome.status,
      url: null,
    };
  }
  const params = new URL(outcome.url, page).searchParams;
  const error = params.get("error") ?? undefined;
  const result: SignInResult = {
    ok: outcome.ok && error === undefined,
    error,
    code: params.get("code") ?? undefined,
    status: outcome.status,
    url: error === undefined ? outcome.url : null,
  };
  if (result.ok && isTwoFactorChallenge(outcome.url, base, page)) result.twoFactorRequired = true;
  return result;
}

/**
 * Signs in with a provider.
 *
 * What is posted depends on the provider's type. Under core's default ids (`"credentials"`,
 * `"password"`, `"passkey"`, `"webauthn"`) the type is known without asking. For any other id
 * the client reads the type from `GET <basePath>/providers` (once per base path; a list that
 * could not be had is asked for again on the next call, and this call posts to `signin`).
 *
 * - No provider: navigates to the sign-in page of the auth route.
 * - A credentials or password provider (`Credentials({ id: "ldap" })` as well as
 *   `"credentials"`): posts the other options to `<basePath>/callback/<provider>`. A password
 *   account whose address is not proven yet answers `error: "EmailNotVerified"` to its right
 *   password.
 * - A WebAuthn provider (`"passkey"`, `"webauthn"`, or any id of that type): the browser's
 *   passkey prompt, with the options of `<basePath>/webauthn-options/<provider>`, then its answer
 *   posted to `<basePath>/callback/<provider>`. `{ action: "register" }` makes a new passkey
 *   instead (as `registerPasskey()` does). This needs the `signIn` of {@link withPasskeys}, which
 *   holds the WebAuthn browser library and loads it for such a call only; the plain `signIn` of
 *   `@gatehousejs/core/client` rejects with a `TypeError` before any request of the ceremony.
 * - Any other provider (or one the provider list does not name): posts to
 *   `<basePath>/signin/<provider>` (an OAuth provider answers with its authorization URL, an
 *   email provider sends its link).
 *
 * With `redirect: false` the page stays and the promise resolves with the outcome; a wrong
 * password is `{ ok: false, error: "CredentialsSignin", code: "credentials" }`. Session sources
 * (`createSessionSource`, and the framework integrations' sessions built on it) refetch after a
 * sign-in that did not navigate.
 *
 * A user with two-factor sign-in on gets no session from the first factor: the result is
 * `{ ok: true, twoFactorRequired: true }` with `url` the challenge page (where the default
 * `redirect` goes), and `verifyTwoFactor({ code })` finishes the sign-in from the app's own page.
 *
 * @example
 * ```ts
 * import { signIn } from "@gatehousejs/core/client";
 *
 * const result = await signIn("credentials", {
 *   username: "alice",
 *   password: "wonderland",
 *   redirect: false,
 * });
 * if (result.error === "CredentialsSignin") console.log("Wrong username or password");
 * ```
 */
export interface SignIn {
  (
    provider: string | undefined,
    options: SignInOptions & { redirect: false },
    authorizationParams?: SignInAuthorizationParams,
  ): Promise<SignInResult>;
  (
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: SignInAuthorizationParams,
  ): Promise<SignInResult | undefined>;
}

/** One sign-in; `load` is the WebAuthn browser library, when the client has one. */
async function signInUsing(
  load: LoadWebAuthnBrowser | undefined,
  provider: string | undefined,
  options: SignInOptions,
  authorizationParams: SignInAuthorizationParams | undefined,
): Promise<SignInResult | undefined> {
  const { redirectTo, callbackUrl, redirect = true, basePath, ...fields } = options;
  const base = basePathOf(basePath);
  const location = browserLocation();
  const target = redirectTo ?? callbackUrl ?? location.href;
  if (!provider) {
    navigate(`${base}/signin?${new URLSearchParams({ callbackUrl: target })}`);
    return undefined;
  }
  const route = await routeOf(provider, base);
  if (route === "passkey") {
    return passkeyCeremony(load, fields.action === "register" ? "register" : "authenticate", {
      provider,
      redirectTo: target,
      redirect,
      basePath,
    });
  }
  const query = new URLSearchParams(authorizationParams).toString();
  const url = `${base}/${route}/${encodeURIComponent(provider)}${query ? `?${query}` : ""}`;
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) form[key] = String(value);
  }
  form.csrfToken = await fetchCsrfToken(base);
  form.callbackUrl = target;
  const outcome = await postForm(url, form);
  const result = resultOf(outcome, location.href, base);
  if (redirect && outcome.url !== undefined) {
    navigate(outcome.url);
    return undefined;
  }
  // A sign-in held for its second factor made no session: nothing for session sources to read.
  if (result.ok && !result.twoFactorRequired) sessionChanged();
  return result;
}

/** The `signIn` of a client with the WebAuthn browser library `load` gives, or none. */
function signInWith(load: LoadWebAuthnBrowser | undefined): SignIn {
  function signIn(
    provider: string | undefined,
    options: SignInOptions & { redirect: false },
    authorizationParams?: SignInAuthorizationParams,
  ): Promise<SignInResult>;
  function signIn(
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: SignInAuthorizationParams,
  ): Promise<SignInResult | undefined>;
  function signIn(
    provider?: string,
    options: SignInOptions = {},
    authorizationParams?: SignInAuthorizationParams,
  ): Promise<SignInResult | undefined> {
    return signInUsing(load, provider, options, authorizationParams);
  }
  return signIn;
}

/**
 * Signs in with a provider: see {@link SignIn}. Passkeys (WebAuthn providers) need the `signIn`
 * of {@link withPasskeys}; this one rejects them with a `TypeError`, before the ceremony's first
 * request.
 */
export const signIn: SignIn = /* @__PURE__ */ signInWith(undefined);

/** What {@link withPasskeys} returns: a `signIn` that runs passkeys, and `registerPasskey`. */
export interface PasskeyClient {
  signIn: SignIn;
  registerPasskey: RegisterPasskey;
}

/**
 * `signIn` and `registerPasskey` with passkeys, given the browser side of WebAuthn: a function
 * that loads it, called on the first passkey ceremony only, so a page that signs in with a
 * password never downloads the library. Call it once, where the app's (or the framework
 * integration's) client starts. `@simplewebauthn/browser` 13 or later fits as it is.
 *
 * @example
 * ```ts
 * import { type LoadWebAuthnBrowser, withPasskeys } from "@gatehousejs/core/client";
 *
 * // In the app: () => import("@simplewebauthn/browser")
 * declare const loadWebAuthn: LoadWebAuthnBrowser;
 * export const { signIn, registerPasskey } = withPasskeys(loadWebAuthn);
 *
 * await registerPasskey({ redirect: false });
 * await signIn("passkey", { redirectTo: "/account" });
 * ```
 */
export function withPasskeys(load: LoadWebAuthnBrowser): PasskeyClient {
  if (typeof load !== "function") {
    throw new TypeError("withPasskeys takes a function that loads the WebAuthn browser library");
  }
  function registerPasskey(options: PasskeyOptions & { redirect: false }): Promise<SignInResult>;
  function registerPasskey(options?: PasskeyOptions): Promise<SignInResult | undefined>;
  function registerPasskey(options: PasskeyOptions = {}): Promise<SignInResult | undefined> {
    return passkeyCeremony(load, "register", options);
  }
  return { signIn: signInWith(load), registerPasskey };
}

/**
 * Signs out: posts to `<basePath>/signout` (with the CSRF token) and navigates to where the
 * server sends the browser, or with `redirect: false` stays and resolves with that URL.
 *
 * @example
 * ```ts
 * import { signOut } from "@gatehousejs/core/client";
 *
 * await signOut({ redirectTo: "/" });
 * ```
 */
export async function signOut(
  options: SignOutOptions & { redirect: false },
): Promise<SignOutResult>;
export async function signOut(options?: SignOutOptions): Promise<SignOutResult | undefined>;
export async function signOut(options: SignOutOptions = {}): Promise<SignOutResult | undefined> {
  const { redirectTo, callbackUrl, redirect = true, basePath, federated } = options;
  const base = basePathOf(basePath);
  const location = browserLocation();
  const csrfToken = await fetchCsrfToken(base);
  const fields: Record<string, string> = {
    csrfToken,
    callbackUrl: redirectTo ?? callbackUrl ?? location.href,
  };
  if (federated !== undefined) fields.federated = String(federated);
  const outcome = await postForm(`${base}/signout`, fields);
  // Not signed out (the session store could not end the session, say): never pretend it worked.
  if (outcome.url === undefined) throw new AuthRouteError("to the sign-out", outcome);
  if (redirect) {
    navigate(outcome.url);
    return undefined;
  }
  sessionChanged();
  return { url: outcome.url };
}
