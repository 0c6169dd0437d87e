/**
 * What the two-factor routes share: whether the client reads JSON, a refusal's JSON, the
 * resolved options, and the URLs of the routes.
 */
import type { Context } from "../../context.js";
import { readsJson } from "../../request.js";
import { jsonResult, noStore } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import { DEFAULT_MAX_ATTEMPTS } from "./limits.js";
import type { TotpParams } from "./store.js";

/** Whether the client reads JSON (../../request.ts `readsJson`). */
export const wantsJson = (ctx: Context): boolean => readsJson(ctx.req);

/** One `warn` line naming the refusal, never what was typed. */
export function logRefusal(ctx: Context, error: string): void {
  const logged = new Error(`A two-factor request was refused (${error})`);
  logged.name = error;
  ctx.config.logger.warn("client-error", logged);
}

/** A refusal as JSON: 400 (or `status`), logged as the client's mistake. */
export function refusalJson(
  ctx: Context,
  error: string,
  message: string,
  status = 400,
): ResponseInternal {
  logRefusal(ctx, error);
  return jsonResult({ error, message }, status, noStore);
}

/** The options with their defaults. */
export interface ResolvedTwoFactor {
  issuer: string | undefined;
  params: TotpParams;
  backupCodes: number;
  oauth: boolean | readonly string[];
  maxAttempts: number;
}

const resolved = new WeakMap<object, ResolvedTwoFactor>();

/** The configuration's two-factor options over the defaults (checked by ./requirements.ts). */
export function optionsOf(ctx: Context): ResolvedTwoFactor {
  const source = ctx.config.source.twoFactor ?? {};
  let found = resolved.get(source);
  if (!found) {
    found = {
      issuer: source.issuer,
      params: {
        algorithm: source.totp?.algorithm ?? "SHA-1",
        digits: source.totp?.digits ?? 6,
        period: source.totp?.period ?? 30,
      },
      backupCodes: source.backupCodes ?? 10,
      oauth: source.oauth ?? false,
      maxAttempts: source.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    };
    resolved.set(source, found);
  }
  return found;
}

/** The absolute URL of a two-factor route (`challenge`, `enroll`, …). */
export const routeUrl = (ctx: Context, name: string) => `${ctx.authUrl}/two-factor/${name}`;

/** The settings page: GET /two-factor. */
export const settingsUrl = (ctx: Context) => `${ctx.authUrl}/two-factor`;
