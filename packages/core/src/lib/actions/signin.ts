import type { Context } from "../context.js";
import { InvalidProvider, UnknownAction } from "../errors.js";
import { methodFor } from "../feature.js";
import { redirectResult } from "../response.js";
import type { ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";
import { pageUrl, signInPage } from "./pages.js";

/**
 * GET /signin shows the sign-in page. POST /signin/<provider> starts that provider's flow;
 * providers whose form posts straight to their callback (credentials, WebAuthn) and a POST
 * without a provider go back to the sign-in page.
 */
export async function signIn(ctx: Context): Promise<ResponseInternal> {
  if (ctx.req.method === "GET") return signInPage(ctx);
  await requireCsrf(ctx);
  // Refuse a hostile callbackUrl up front, and remember a good one for the end of the flow.
  await ctx.callbackUrl();
  const signInUrl = pageUrl(ctx, ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`, {});
  if (ctx.req.providerId === undefined) return redirectResult(signInUrl);
  if (!ctx.config.providerById.has(ctx.req.providerId)) {
    // The client named a provider that does not exist: back to the page that lists them.
    ctx.config.logger.warn(
      "client-error",
      new UnknownAction("No provider has the id given in the path"),
    );
    return redirectResult(signInUrl);
  }
  const provider = ctx.requireProvider();
  const method = await methodFor(provider);
  if (!method) throw new InvalidProvider("This provider type cannot start a sign-in");
  // Credentials and WebAuthn forms post straight to their callback: back to the page.
  if (!method.start) return redirectResult(signInUrl);
  return method.start(ctx, provider);
}
