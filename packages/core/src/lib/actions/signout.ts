import type { Context } from "../context.js";
import { redirectResult } from "../response.js";
import { recordSecurityEvent, sessionSubject } from "../security-log.js";
import { endSession } from "../session/index.js";
import type { ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";
import { signOutPage } from "./pages.js";

/** GET /signout shows the confirmation page; POST /signout ends the session and redirects. */
export async function signOut(ctx: Context): Promise<ResponseInternal> {
  if (ctx.req.method === "GET") return signOutPage(ctx);
  await requireCsrf(ctx);
  // End the session first: a refused callbackUrl must not leave the user signed in. The
  // deletions are queued on the context, so they also ride on an error redirect.
  const subject = await sessionSubject(ctx);
  ctx.setCookies.push(...(await endSession(ctx)));
  if (subject) await recordSecurityEvent(ctx, { type: "signOut", ...subject });
  return redirectResult(await ctx.callbackUrl());
}
