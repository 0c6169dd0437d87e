import type { Context } from "../context.js";
import { redirectResult } from "../response.js";
import { endSession } from "../session/index.js";
import type { ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";
import { signOutPage } from "./pages.js";

/** GET /signout shows the confirmation page; POST /signout ends the session and redirects. */
export async function signOut(ctx: Context): Promise<ResponseInternal> {
  if (ctx.req.method === "GET") return signOutPage(ctx);
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  const cookies = await endSession(ctx);
  return { ...redirectResult(callbackUrl), cookies };
}
