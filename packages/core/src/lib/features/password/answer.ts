/**
 * How the password routes answer: JSON to a JSON request (or one that accepts JSON and not
 * HTML), a page or a redirect to a browser form. Refusals the user can fix are a 400 with a
 * stable `error` and a `message` for the user, never a 500.
 */
import type { Context } from "../../context.js";
import { readsJson } from "../../request.js";
import { jsonResult, noStore } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { PasswordConfig } from "./options.js";
import { type PasswordPolicy, resolvePasswordPolicy } from "./policy.js";

/** Whether the client reads JSON (../../request.ts `readsJson`). */
export const wantsJson = (ctx: Context): boolean => readsJson(ctx.req);

/** A refusal the user can fix, as JSON; logged as the client's mistake (no value in it). */
export function refusalJson(
  ctx: Context,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
): ResponseInternal {
  logRefusal(ctx, error);
  return jsonResult({ error, message, ...extra }, 400, noStore);
}

/** One `warn` line naming the refusal's type, never what was typed. */
export function logRefusal(ctx: Context, error: string): void {
  const logged = new Error(`A password request was refused (${error})`);
  logged.name = error;
  ctx.config.logger.warn("client-error", logged);
}

const policies = new WeakMap<object, PasswordPolicy>();
let defaultPolicy: PasswordPolicy | undefined;

/** The provider's policy, resolved once per options object (the factory checked it). */
export function policyOf(provider: PasswordConfig): PasswordPolicy {
  const options = provider.policy;
  if (!options) {
    defaultPolicy ??= resolvePasswordPolicy();
    return defaultPolicy;
  }
  let found = policies.get(options);
  if (!found) {
    found = resolvePasswordPolicy(options);
    policies.set(options, found);
  }
  return found;
}
