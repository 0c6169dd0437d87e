/**
 * The page actions: GET /signin, GET /signout and GET /error (GET /verify-request is in
 * verify-request.ts). Each renders the built-in page, or redirects to the custom page configured
 * in `pages`.
 */
import type { Context } from "../context.js";
import { renderErrorPage, renderSignInPage, renderSignOutPage } from "../pages/index.js";
import { htmlResult, pageUrl, redirectResult } from "../response.js";

export { pageUrl } from "../response.js";

import type { ResponseInternal } from "../types/config.js";

const errorValue = (value: string | undefined) =>
  value !== undefined && value.length <= 64 ? value : undefined;

/** GET /signin */
export async function signInPage(ctx: Context): Promise<ResponseInternal> {
  const callbackUrl = await ctx.callbackUrl();
  const error = errorValue(ctx.req.query.error);
  const custom = ctx.config.pages.signIn;
  if (custom) return redirectResult(pageUrl(ctx, custom, { callbackUrl, error }));
  const { token } = await ctx.csrf();
  const html = renderSignInPage({
    providers: ctx.config.providers.map((p) => ctx.provider(p)),
    csrfToken: token,
    callbackUrl,
    error,
    code: errorValue(ctx.req.query.code),
    email: ctx.req.query.email,
    theme: ctx.config.theme,
  });
  return htmlResult(html);
}

/** GET /signout */
export async function signOutPage(ctx: Context): Promise<ResponseInternal> {
  const error = errorValue(ctx.req.query.error);
  const custom = ctx.config.pages.signOut;
  if (custom) return redirectResult(pageUrl(ctx, custom, { error }));
  const explicit = ctx.req.query.callbackUrl ? await ctx.callbackUrl() : undefined;
  const { token } = await ctx.csrf();
  return htmlResult(
    renderSignOutPage({
      csrfToken: token,
      action: `${ctx.authUrl}/signout`,
      callbackUrl: explicit,
      theme: ctx.config.theme,
      error,
    }),
  );
}

/**
 * Where a sign-out refused for its CSRF token goes: back to the sign-out page (built in, or
 * `pages.signOut`) with `error=MissingCSRF`, which says the sign-out form expired and offers a
 * fresh one. A callback URL the `redirect` callback accepts comes along; a refused one is dropped.
 */
export async function signOutRetryUrl(ctx: Context): Promise<string> {
  const page = ctx.config.pages.signOut ?? `${ctx.config.basePath}/signout`;
  const explicit = ctx.req.body?.callbackUrl ?? ctx.req.query.callbackUrl;
  const callbackUrl = explicit ? await ctx.callbackUrl().catch(() => undefined) : undefined;
  return pageUrl(ctx, page, { error: "MissingCSRF", callbackUrl });
}

/** GET /error */
export function errorPage(ctx: Context): ResponseInternal {
  const error = errorValue(ctx.req.query.error);
  const custom = ctx.config.pages.error;
  if (custom) return redirectResult(pageUrl(ctx, custom, { error }));
  const { status, html } = renderErrorPage({
    error,
    siteUrl: ctx.origin,
    signInUrl: pageUrl(ctx, ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`, {}),
    theme: ctx.config.theme,
  });
  return htmlResult(html, status);
}
