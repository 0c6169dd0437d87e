/**
 * What a server-rendered page needs from the auth route without a round trip through the
 * browser: the CSRF token for a form that posts to it, and how the current session signed in.
 * Both ask the route in-process (core's `Auth()` with the page request's cookies), never over
 * HTTP.
 */
import { Auth } from "../index.js";
import type { SessionInfo } from "../types.js";
import { type IntegrationConfig, resolveIntegrationConfig } from "./config.js";

/** A GET of `<prefix>/<action>` carrying the page request's cookies and host headers. */
function askRoute(request: Request, config: IntegrationConfig, action: string): Promise<Response> {
  const { core, prefix } = resolveIntegrationConfig(config);
  const headers = new Headers(request.headers);
  for (const name of ["content-type", "content-length", "transfer-encoding"]) headers.delete(name);
  headers.set("accept", "application/json");
  const url = new URL(`${prefix}/${action}`, request.url);
  return Auth(new Request(url, { method: "GET", headers }), core);
}

/** What {@link readCsrfToken} resolves to. */
export interface CsrfTokenAnswer {
  /** The token for a form that posts to the auth route. */
  csrfToken: string;
  /** The `Set-Cookie` values for the page's response: empty when the browser's cookie is valid. */
  cookies: string[];
}

/**
 * The CSRF token for a form that posts to the auth route from a server-rendered page, such as
 * a sign-out form: the token of the browser's CSRF cookie when that cookie is valid; otherwise
 * a new one, with the cookie that vouches for it, which the page's response must carry.
 *
 * Throws an `Error` when the auth route does not answer a token (its configuration is broken:
 * core has logged why).
 */
export async function readCsrfToken(
  request: Request,
  config: IntegrationConfig,
): Promise<CsrfTokenAnswer> {
  const response = await askRoute(request, config, "csrf");
  const body = (await response.json().catch(() => null)) as { csrfToken?: unknown } | null;
  if (!response.ok || typeof body?.csrfToken !== "string") {
    throw new Error(`getCsrfToken: the auth route answered ${response.status} for its CSRF token`);
  }
  return { csrfToken: body.csrfToken, cookies: response.headers.getSetCookie() };
}

/**
 * The session record of a request (what `GET <prefix>/sessions` lists with `current: true`):
 * when and how it signed in (`provider`, `providerType` such as `"oidc"`), when it was last
 * seen, its browser. `null` without a session. Use it to offer what fits the way this session
 * signed in, such as "sign out of the identity provider too" only for an OpenID Connect sign-in.
 *
 * @example
 * ```ts
 * import { getSessionInfo, type IntegrationConfig } from "@gatehousejs/core/integration";
 *
 * declare const authConfig: IntegrationConfig;
 * declare const request: Request;
 * const info = await getSessionInfo(request, authConfig);
 * const federated = info?.providerType === "oidc";
 * ```
 */
export async function getSessionInfo(
  request: Request,
  config: IntegrationConfig,
): Promise<SessionInfo | null> {
  const response = await askRoute(request, config, "sessions");
  if (response.status === 401) return null;
  const body = (await response.json().catch(() => null)) as { sessions?: unknown } | null;
  if (!response.ok || !Array.isArray(body?.sessions)) {
    throw new Error(`getSessionInfo: the auth route answered ${response.status} for the sessions`);
  }
  const sessions = body.sessions as SessionInfo[];
  return sessions.find((session) => session?.current === true) ?? null;
}
