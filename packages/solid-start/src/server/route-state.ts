/**
 * What a server-rendered page needs from the auth route without a round trip through the
 * browser: the CSRF token for a form that posts to it, and how the current session signed in.
 * Both ask the route in-process (core's `Auth()` with the page request's cookies), never over
 * HTTP.
 */
import { Auth } from "@gatehousejs/core";
import type { SessionInfo } from "@gatehousejs/core/types";
import { effectiveConfig, type SolidAuthConfig } from "./config.js";
import { appendCookies, currentEvent } from "./request-event.js";

/** A GET of `<prefix>/<action>` carrying the page request's cookies and host headers. */
async function askRoute(
  request: Request,
  config: SolidAuthConfig,
  action: string,
): Promise<Response> {
  const { core, prefix } = effectiveConfig(config);
  const headers = new Headers(request.headers);
  for (const name of ["content-type", "content-length", "transfer-encoding"]) headers.delete(name);
  headers.set("accept", "application/json");
  const url = new URL(`${prefix}/${action}`, request.url);
  return Auth(new Request(url, { method: "GET", headers }), core);
}

/**
 * The CSRF token for a form that posts to the auth route from a server-rendered page, such as
 * a sign-out form (`<form method="post" action="/api/auth/signout">` with a hidden `csrfToken`).
 * It is the token of the browser's CSRF cookie when that cookie is valid; otherwise a new one,
 * whose cookie is appended to the current SolidStart response. On a streamed page, read it in a
 * query the page waits for (`createAsync(..., { deferStream: true })`) so that the cookie is
 * sent before the headers are.
 *
 * Throws an `Error` when a new cookie is needed outside a SolidStart request (it could not
 * reach the browser), and when the auth route does not answer a token (its configuration is
 * broken: core has logged why).
 *
 * @example
 * ```ts
 * import { getCsrfToken, type SolidAuthConfig } from "@gatehousejs/solid-start";
 * import { query } from "@solidjs/router";
 * import { getRequestEvent } from "solid-js/web";
 *
 * declare const authConfig: SolidAuthConfig;
 * export const csrfQuery = query(async () => {
 *   "use server";
 *   const event = getRequestEvent();
 *   return event ? getCsrfToken(event.request, authConfig) : null;
 * }, "csrf");
 * ```
 */
export async function getCsrfToken(request: Request, config: SolidAuthConfig): Promise<string> {
  const event = await currentEvent();
  const response = await askRoute(request, config, "csrf");
  const body = (await response.json().catch(() => null)) as { csrfToken?: unknown } | null;
  if (!response.ok || typeof body?.csrfToken !== "string") {
    throw new Error(`getCsrfToken: the auth route answered ${response.status} for its CSRF token`);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) {
    if (!event) {
      throw new Error(
        'getCsrfToken() sets a cookie, which needs a SolidStart request: call it from a "use server" function',
      );
    }
    appendCookies(event, cookies);
  }
  return body.csrfToken;
}

/**
 * The session record of a request (what `GET <prefix>/sessions` lists with `current: true`):
 * when and how it signed in (`provider`, `providerType` such as `"oidc"`), when it was last
 * seen, its browser. `null` without a session. Use it to offer what fits the way this session
 * signed in, such as "sign out of the identity provider too" only for an OpenID Connect sign-in.
 *
 * @example
 * ```ts
 * import { getSessionInfo, type SolidAuthConfig } from "@gatehousejs/solid-start";
 *
 * declare const authConfig: SolidAuthConfig;
 * declare const request: Request;
 * const info = await getSessionInfo(request, authConfig);
 * const federated = info?.providerType === "oidc";
 * ```
 */
export async function getSessionInfo(
  request: Request,
  config: SolidAuthConfig,
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
