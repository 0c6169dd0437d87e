/// <reference path="../next-modules.d.ts" />
/**
 * `signIn`, `signOut` and `unstable_update` for Server Actions (and Route Handlers): the auth
 * route's actions run in-process with the cookies of the request being served, their cookies
 * set through `cookies()`, and their redirects made with `redirect()` of `next/navigation`.
 */
import { Auth, raw, skipCSRFCheck } from "@gatehousejs/core";
import {
  type IntegrationConfig,
  resolveIntegrationConfig,
  sameSitePath,
  signInLocation,
} from "@gatehousejs/core/integration";
import type { AuthConfig, ProviderType, ResponseInternal, Session } from "@gatehousejs/core/types";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { actionRequest, setCookies } from "./next-request.js";

/** Options of a server-side `signIn`, or the `FormData` of the form that called it. */
export type ServerSignInOptions =
  | FormData
  | ({
      /** Where to go after signing in. Default: the page the form was on (its `Referer`), else `/`. */
      redirectTo?: string;
      /** `false`: return the URL to go to instead of redirecting. Default `true`. */
      redirect?: boolean;
    } & Record<string, unknown>);

/** Options of a server-side `signOut`. */
export interface ServerSignOutOptions {
  /** Where to go after signing out. Default: the page the form was on, else `/`. */
  redirectTo?: string;
  /** `false`: return the URL to go to instead of redirecting. Default `true`. */
  redirect?: boolean;
  /**
   * Also end the session at the OpenID provider the user signed in with (its
   * `end_session_endpoint`), which sends the browser back to `redirectTo`. Default: the
   * provider's `federatedLogout` option (docs/tokens.md).
   */
  federated?: boolean;
  /** The OpenID provider for `federated`, when the configuration has more than one. */
  provider?: string;
}

/** The authorization parameters a server-side `signIn` adds to the provider's request. */
export type AuthorizationParams = string[][] | Record<string, string> | string | URLSearchParams;

const inProcess = new WeakMap<AuthConfig, AuthConfig & { raw: typeof raw }>();

/**
 * The core configuration for the actions run here: the internal answer instead of a `Response`
 * (its cookies and redirect are Next's to apply, a `CredentialsSignin` is thrown to the caller),
 * and no CSRF token (Next.js checks the origin of every Server Action itself).
 */
function inProcessConfig(config: IntegrationConfig): AuthConfig & { raw: typeof raw } {
  const { core } = resolveIntegrationConfig(config);
  let own = inProcess.get(core);
  if (!own) {
    own = { ...core, raw, skipCSRFCheck };
    inProcess.set(core, own);
  }
  return own;
}

/** The form's fields as strings, without the fields Next.js adds to a Server Action's form. */
function fieldsOf(options: ServerSignInOptions | undefined): Record<string, unknown> {
  if (!(options instanceof FormData)) return { ...(options ?? {}) };
  const out: Record<string, unknown> = {};
  for (const [key, value] of options) {
    if (key.startsWith("$ACTION")) continue;
    if (typeof value === "string") out[key] = value;
  }
  return out;
}

/** Where to come back to: the option when it is usable, else the `Referer`, else `/`. */
async function returnTo(option: unknown): Promise<string> {
  if (typeof option === "string" && option !== "") return option;
  return (await headers()).get("referer") ?? "/";
}

function asBody(fields: Record<string, unknown>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    body.set(key, typeof value === "string" ? value : String(value));
  }
  return body;
}

/** The type of a configured provider, or `undefined` when no provider has that id. */
function providerType(config: IntegrationConfig, id: string): ProviderType | undefined {
  const { core } = resolveIntegrationConfig(config);
  for (const entry of core.providers ?? []) {
    const provider = (typeof entry === "function" ? (entry as () => unknown)() : entry) as {
      id?: string;
      type?: ProviderType;
    };
    if (provider.id === id) return provider.type;
  }
  return undefined;
}

/** Applies an in-process answer: its cookies, then its redirect (or the URL, when asked). */
async function finish(
  answer: ResponseInternal,
  fallback: string,
  follow: boolean,
): Promise<string> {
  if (answer.cookies?.length) await setCookies(answer.cookies);
  const target = answer.redirect ?? fallback;
  if (follow) redirect(target);
  return target;
}

/**
 * Signs in from a Server Action (or a Route Handler).
 *
 * - No provider, or one the configuration does not have: to the sign-in page, with
 *   `callbackUrl`.
 * - A credentials or password provider: the form's fields go to its `authorize`; the session
 *   cookie is set and the browser goes to `redirectTo`. A refused sign-in throws the
 *   `CredentialsSignin` error to the caller (no redirect).
 * - Any other provider (OAuth, OIDC, email): the browser goes where the provider says (its
 *   authorization URL, the "check your email" page).
 */
export async function serverSignIn(
  config: IntegrationConfig,
  provider: string | undefined,
  options: ServerSignInOptions | undefined,
  authorizationParams: AuthorizationParams | undefined,
): Promise<string> {
  const { redirectTo, redirect: follow = true, ...fields } = fieldsOf(options);
  const callbackUrl = await returnTo(redirectTo);
  const shouldRedirect = follow !== false && follow !== "false";
  const { prefix } = resolveIntegrationConfig(config);
  const type = provider ? providerType(config, provider) : undefined;
  if (!provider || !type) {
    const page = signInLocation(prefix, sameSitePath(callbackUrl) ?? callbackUrl);
    if (shouldRedirect) redirect(page);
    return page;
  }
  const viaCallback = (type as string) === "credentials" || (type as string) === "password";
  const request = await actionRequest(viaCallback ? "callback" : "signin", config, {
    method: "POST",
    path: encodeURIComponent(provider),
    query: new URLSearchParams(authorizationParams),
    body: asBody({ ...fields, callbackUrl }),
  });
  const answer = await Auth(request, inProcessConfig(config));
  return finish(answer, callbackUrl, shouldRedirect);
}

/**
 * Signs out from a Server Action: the session ends, its cookie is cleared, then `redirectTo`
 * (with `federated`, by way of the OpenID provider's end-session page).
 */
export async function serverSignOut(
  config: IntegrationConfig,
  options: ServerSignOutOptions = {},
): Promise<string> {
  const callbackUrl = await returnTo(options.redirectTo);
  const { federated, provider } = options;
  const request = await actionRequest("signout", config, {
    method: "POST",
    body: asBody({ callbackUrl, federated, provider }),
  });
  const answer = await Auth(request, inProcessConfig(config));
  if (!answer.redirect && (answer.status ?? 200) >= 400) {
    // The session store could not end the session (docs/sessions.md): the user is signed in.
    throw new Error(`signOut: the auth route answered ${answer.status} and the session remains`);
  }
  return finish(answer, callbackUrl, options.redirect !== false);
}

/**
 * Updates the session from the server (`POST <prefix>/session` with `data`): the `jwt` and
 * `session` callbacks see `trigger: "update"`. Resolves with the new session, or `null`.
 */
export async function serverUpdate(
  config: IntegrationConfig,
  data: Partial<Session> | Record<string, unknown>,
): Promise<Session | null> {
  const request = await actionRequest("session", config, {
    method: "POST",
    json: { data },
  });
  const answer = await Auth(request, inProcessConfig(config));
  if (answer.cookies?.length) await setCookies(answer.cookies);
  const body = answer.body as Session | Record<string, never> | null | undefined;
  return body && typeof body === "object" && Object.keys(body).length > 0
    ? (body as Session)
    : null;
}
