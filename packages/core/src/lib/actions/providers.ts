import type { Context } from "../context.js";
import { jsonResult } from "../response.js";
import type { ResponseInternal } from "../types/config.js";

/** GET /providers: every provider with its sign-in and callback URLs. */
export function providers(ctx: Context): ResponseInternal {
  const out: Record<string, unknown> = {};
  for (const config of ctx.config.providers) {
    const { id, name, type, signinUrl, callbackUrl } = ctx.provider(config);
    out[id] = { id, name, type, signinUrl, callbackUrl };
  }
  return jsonResult(out);
}
