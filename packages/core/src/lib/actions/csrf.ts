import type { Context } from "../context.js";
import { expireCookie } from "../cookies.js";
import { MissingCSRF } from "../errors.js";
import { jsonResult, noStore } from "../response.js";
import type { ResponseInternal } from "../types/config.js";

/** GET /csrf: the CSRF token for this browser (minting one, with its cookie, if needed). */
export async function csrf(ctx: Context): Promise<ResponseInternal> {
  if (ctx.config.skipCSRF) {
    ctx.config.logger.warn("csrf-disabled");
    const { name, options } = ctx.cookieOptions.csrfToken;
    const cookies = name in ctx.req.cookies ? [expireCookie(name, options)] : [];
    return { status: 404, cookies };
  }
  const { token } = await ctx.csrf();
  return jsonResult({ csrfToken: token }, 200, noStore);
}

/** Throws `MissingCSRF` unless the POST body echoed the CSRF cookie's token. */
export async function requireCsrf(ctx: Context): Promise<void> {
  if (ctx.config.skipCSRF) return;
  const { verified } = await ctx.csrf();
  if (!verified) throw new MissingCSRF("The CSRF token is missing or does not match its cookie");
}
