import type { Context } from "../context.js";
import { jsonResult, noStore } from "../response.js";
import { checkSession } from "../session/index.js";
import type { ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";

/**
 * GET /session: the session, or `null`. POST /session: an update; the body's `data` reaches the
 * `jwt` callback (JWT) or the `session` callback as `newSession` (database), with
 * `trigger: "update"`.
 */
export async function session(ctx: Context): Promise<ResponseInternal> {
  const isUpdate = ctx.req.method === "POST";
  if (isUpdate) await requireCsrf(ctx);
  const update = isUpdate ? { data: ctx.req.body?.data } : undefined;
  const check = await checkSession(ctx, update);
  const result = jsonResult(check.session, 200, isUpdate ? undefined : noStore);
  result.cookies = check.cookies;
  return result;
}
