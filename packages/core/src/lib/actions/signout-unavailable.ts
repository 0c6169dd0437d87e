/**
 * The answer to a `POST /signout` (or a revocation of the current session) whose session could
 * not be ended because its store did not answer in time. The session is still live, so the answer
 * says so and clears no cookie: a `503` with `Retry-After`, as JSON for `fetch` and JSON clients,
 * as a page that offers to try again for a browser form, or the app's own error page with
 * `?error=SessionStoreUnavailable`.
 */
import type { Context } from "../context.js";
import type { SessionStoreUnavailable } from "../errors.js";
import { htmlResult, jsonResult, noStore, redirectResult } from "../response.js";
import type { ResponseInternal } from "../types/config.js";
import { pageUrl } from "./pages.js";

/**
 * Whether the client reads JSON rather than pages: a `fetch` caller that asks for the redirect
 * target (`X-Auth-Return-Redirect`), or one that accepts JSON and not HTML. The same test decides
 * how a rate-limited request is answered.
 */
export function wantsJson(ctx: Context): boolean {
  if (ctx.req.headers.has("X-Auth-Return-Redirect")) return true;
  const accept = ctx.req.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** The JSON `503` for a session store that is down; `what` says what did not happen. */
export function unavailableJson(
  error: SessionStoreUnavailable,
  what = "The session could not be ended right now and is still active.",
): ResponseInternal {
  const retryAfter = String(error.retryAfter);
  return jsonResult(
    {
      error: "SessionStoreUnavailable",
      message: `${what} Try again in ${retryAfter} seconds.`,
      retryAfter: error.retryAfter,
    },
    503,
    { ...noStore, "Retry-After": retryAfter },
  );
}

/** The answer to a sign-out that could not end the session; one error log line. */
export async function signOutUnavailable(
  ctx: Context,
  error: SessionStoreUnavailable,
  callbackUrl: string | undefined,
): Promise<ResponseInternal> {
  ctx.config.logger.error(error);
  const retryAfter = String(error.retryAfter);
  if (wantsJson(ctx)) return unavailableJson(error);
  const custom = ctx.config.pages.error;
  if (custom) {
    const result = redirectResult(pageUrl(ctx, custom, { error: "SessionStoreUnavailable" }));
    result.headers = { "Retry-After": retryAfter };
    return result;
  }
  const { token } = await ctx.csrf();
  const { renderSignOutUnavailablePage } = await import("../pages/signout-unavailable.js");
  const html = renderSignOutUnavailablePage({
    csrfToken: token,
    action: `${ctx.authUrl}/signout`,
    ...(callbackUrl ? { callbackUrl } : {}),
    retryAfter: error.retryAfter,
    theme: ctx.config.theme,
  });
  const result = htmlResult(html, 503);
  result.headers = { ...result.headers, "Retry-After": retryAfter };
  return result;
}
