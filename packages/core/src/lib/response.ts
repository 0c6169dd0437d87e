/**
 * Internal responses and their conversion to web `Response`s.
 */
import { serializeCookie } from "./cookies.js";
import { securePage } from "./pages/csp.js";
import type { ResponseInternal } from "./types/config.js";

/** Headers that keep session and CSRF answers out of every cache. */
export const noStore: Record<string, string> = {
  "Content-Type": "application/json",
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
};

const json = { "Content-Type": "application/json" };

/** A JSON answer. */
export function jsonResult(
  body: unknown,
  status = 200,
  headers: Record<string, string> = json,
): ResponseInternal {
  return { status, headers, body };
}

/** A built-in HTML page, with its security headers (no caching, no framing, a CSP nonce). */
export function htmlResult(body: string, status = 200): ResponseInternal {
  const page = securePage(body);
  return { status, headers: page.headers, body: page.html };
}

/** A redirect (302). */
export function redirectResult(location: string): ResponseInternal {
  return { status: 302, redirect: location };
}

/**
 * The web `Response` for an internal one. With `returnRedirect` (the `X-Auth-Return-Redirect`
 * request header) a redirect becomes `200 {"url": location}` so that `fetch` callers can follow
 * it themselves.
 */
export function toResponse(result: ResponseInternal, returnRedirect: boolean): Response {
  const cookies = result.cookies;
  if (result.redirect === undefined && !cookies?.length) {
    // The common case (a session check with nothing to set): no Headers object of our own.
    const json = !result.headers || result.headers["Content-Type"] === "application/json";
    const body =
      typeof result.body === "string" && !json ? result.body : JSON.stringify(result.body ?? null);
    return new Response(result.body === undefined ? null : body, {
      status: result.status ?? 200,
      headers: result.headers,
    });
  }
  const headers = new Headers(result.headers);
  for (const cookie of result.cookies ?? []) headers.append("Set-Cookie", serializeCookie(cookie));
  if (result.redirect !== undefined) {
    headers.set("Location", result.redirect);
    if (returnRedirect) {
      headers.set("Content-Type", "application/json");
      return new Response(JSON.stringify({ url: result.redirect }), { status: 200, headers });
    }
    return new Response(null, { status: result.status ?? 302, headers });
  }
  const type = headers.get("Content-Type") ?? "";
  const body =
    typeof result.body === "string" && !type.startsWith("application/json")
      ? result.body
      : JSON.stringify(result.body ?? null);
  return new Response(body, { status: result.status ?? 200, headers });
}

/** `path` on this site (or an absolute custom page URL) with `params` added. */
export function pageUrl(
  ctx: { origin: string },
  path: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(path, ctx.origin);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.href;
}
