/**
 * The app's own pages of password accounts (`pages.signUp`, `pages.forgotPassword`,
 * `pages.resetPassword`, ./options.ts; docs/passwords.md, "Your own pages"). When one is set, a
 * GET of the built-in page's route redirects there with what the page needs in its query; every
 * POST stays on the route (the app's page posts through the client). The URL is made as the
 * kernel's other `pages` are (`pageUrl`, as `pages.emailConfirm`): a path on the request's origin,
 * or an absolute URL used as given.
 *
 * Every link to these pages goes through the routes (the sign-in page's "Create an account" and
 * "Forgot your password?", the change page's "Forgot your current password?", where a request
 * from the built-in forgot page leads, the mailed reset link, the "your password was changed"
 * email): this is the one place that decides which page answers.
 *
 * The mailed reset link stays on the route rather than pointing at the app's page. The token ends
 * up in that page's URL either way (the client reads it from the query), but through the route a
 * link mailed before `pages.resetPassword` changed keeps working for its hour, its `callbackUrl`
 * goes through the `redirect` callback before the token is handed on, and the hop answers no body
 * and no cache, only `Location` with `Referrer-Policy: no-referrer` (the request to the app's page
 * carries no `Referer`). The app's page must send that policy itself too: a redirect's policy
 * does not carry over to the page it leads to.
 */
import type { Context } from "../../context.js";
import { pageUrl, redirectResult } from "../../response.js";
import type { Action } from "../../routes/define.js";
import type { ResponseInternal } from "../../types/config.js";

/** The `pages` options password accounts add. */
export type PasswordPage = "signUp" | "forgotPassword" | "resetPassword";

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** What the app's page gets beside `provider` and `callbackUrl`. */
function queryOf(ctx: Context, page: PasswordPage): Record<string, string | undefined> {
  if (page === "signUp") return {};
  const email = text(ctx.req.query.email);
  if (page === "forgotPassword") return { email };
  // The link's token goes with its address only; without one (where a request leads, or with
  // `resetCode`), the address alone.
  const token = text(ctx.req.query.token);
  return token && email ? { token, email } : { email };
}

async function redirectToAppPage(
  ctx: Context,
  page: PasswordPage,
  target: string,
  providerId: string,
): Promise<ResponseInternal> {
  const callbackUrl = await ctx.callbackUrl();
  const query = { provider: providerId, ...queryOf(ctx, page), callbackUrl };
  const result = redirectResult(pageUrl(ctx, target, query));
  if (page === "resetPassword") {
    result.headers = { "Referrer-Policy": "no-referrer", "Cache-Control": "no-store" };
  }
  return result;
}

/**
 * The route's action: a GET redirects to the app's `page` when the configuration names one, and
 * everything else is the built-in action's (which refuses a provider that is not a password one).
 */
export function withAppPage(page: PasswordPage, builtIn: Action): Action {
  return (ctx) => {
    const target = ctx.config.pages[page];
    if (!target || ctx.req.method === "POST") return builtIn(ctx);
    const provider = ctx.requireProvider();
    if ((provider as { type: string }).type !== "password") return builtIn(ctx);
    return redirectToAppPage(ctx, page, target, provider.id);
  };
}
