/** What the passkey routes share: whether the client reads JSON, and a refusal's answer. */
import type { Context } from "../../context.js";
import { readsJson } from "../../request.js";
import { jsonResult, noStore } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import { PASSKEY_REFUSALS, type PasskeyRefusal } from "./errors.js";

/** Whether the client reads JSON (../../request.ts `readsJson`). */
export const wantsJson = (ctx: Context): boolean => readsJson(ctx.req);

/**
 * A refusal, as JSON `{ error, message }` with its status, logged as the client's mistake with
 * its value alone (never the credential id asked for).
 */
export function refusal(ctx: Context, error: PasskeyRefusal, log?: string): ResponseInternal {
  const { status, message } = PASSKEY_REFUSALS[error];
  const logged = new Error(log ?? `A passkey request was refused (${error})`);
  logged.name = error;
  ctx.config.logger.warn("client-error", logged);
  return jsonResult({ error, message }, status, noStore);
}
