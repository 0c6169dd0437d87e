/**
 * The session on the server, for an integration's helpers: read in-process with the auth
 * route's configuration, and the redirect that sends a visitor without one to sign in.
 */
import { createActionURL, getSession, type SessionRequestInput } from "../index.js";
import type { Session } from "../types.js";
import { type IntegrationConfig, resolveIntegrationConfig } from "./config.js";
import { redirectResponse, requestedPage, sameSitePath, signInLocation } from "./redirect.js";

/**
 * The session of `request`, exactly as `GET <prefix>/session` would answer it, or `null`:
 * computed in-process with the configuration of the auth route (same prefix, environment and
 * callbacks; pass the same `config` object so its core configuration is built once). The
 * `Set-Cookie` values the check sets (a renewed or cleared session cookie) go to `onCookies`,
 * for the response of the page (see `appendCookies`).
 */
export function readSession(
  request: SessionRequestInput,
  config: IntegrationConfig,
  onCookies: (cookies: string[]) => void,
): Promise<Session | null> {
  return getSession(request, resolveIntegrationConfig(config).core, { onCookies });
}

/** The same-site path of the request's `Referer`, when it names a page of the same origin. */
function refererPage(request: Request): string | undefined {
  const referer = request.headers.get("referer");
  if (!referer) return undefined;
  try {
    const from = new URL(referer);
    if (from.origin !== new URL(request.url).origin) return undefined;
    return sameSitePath(`${from.pathname.replace(/^[/\\]+/, "/")}${from.search}`);
  } catch {
    return undefined;
  }
}

/** Options of {@link signInRedirect}. */
export interface SignInRedirectOptions {
  /**
   * The page to come back to after signing in: a path on this site (anything else is ignored).
   * Default: the page requested, or for a server function call the page the browser was on.
   */
  callbackUrl?: string | undefined;
  /**
   * Whether the request is a server function call (a query or action the browser's router
   * runs) rather than a page. Its request does not name the page, so the page to come back to
   * is the same-site `Referer`, and the location is absolute: the router would navigate to a
   * relative one inside the app, where the auth route's page does not exist.
   */
  serverFunction?: boolean;
}

/**
 * A `302` to the sign-in page of the auth route, with `callbackUrl` set so that signing in
 * brings the visitor back. For a page the location is relative; for a server function call it
 * is absolute, built by core's own rule (`url`/`AUTH_URL`, else the request's host only when the
 * host is trusted).
 */
export function signInRedirect(
  request: Request,
  config: IntegrationConfig,
  options: SignInRedirectOptions = {},
): Response {
  const resolved = resolveIntegrationConfig(config);
  const { callbackUrl } = options;
  const explicit = callbackUrl === undefined ? undefined : sameSitePath(callbackUrl);
  if (!options.serverFunction) {
    return redirectResponse(signInLocation(resolved.prefix, explicit ?? requestedPage(request)));
  }
  const page = explicit ?? refererPage(request);
  let protocol = "https";
  try {
    protocol = new URL(request.url).protocol;
  } catch {
    // Kept https: createActionURL reads the host from the headers.
  }
  const action = createActionURL("signin", protocol, request.headers, {}, resolved.core);
  if (page !== undefined) action.searchParams.set("callbackUrl", page);
  return redirectResponse(action.href);
}
