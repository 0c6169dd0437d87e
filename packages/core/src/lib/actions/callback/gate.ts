import type { Context } from "../../context.js";
import { AccessDenied, AuthError } from "../../errors.js";
import { redirectResult } from "../../response.js";
import type { CallbacksOptions, ResponseInternal } from "../../types/config.js";

/**
 * Runs the `signIn` callback. `true` lets the sign-in go on (returns undefined); a string is a
 * redirect (through the `redirect` callback); `false` or a throw is `AccessDenied`.
 */
export async function gateSignIn(
  ctx: Context,
  params: Parameters<NonNullable<CallbacksOptions["signIn"]>>[0],
): Promise<ResponseInternal | undefined> {
  let verdict: boolean | string;
  try {
    verdict = await ctx.config.callbacks.signIn(params);
  } catch (error) {
    if (error instanceof AccessDenied) throw error;
    const message = error instanceof Error && !(error instanceof AuthError) ? error.message : "";
    throw new AccessDenied(message || "The signIn callback threw", { cause: error });
  }
  if (verdict === true) return undefined;
  if (typeof verdict === "string" && verdict !== "") {
    const url = await ctx.config.callbacks.redirect({ url: verdict, baseUrl: ctx.origin });
    return redirectResult(new URL(url, ctx.origin).href);
  }
  throw new AccessDenied("The signIn callback refused the sign-in");
}
