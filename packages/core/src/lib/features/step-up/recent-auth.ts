/**
 * Step-up: whether the request's session rests on a recent enough proof of who the user is, and
 * on the factors an action asks for, before a sensitive action runs. A session carries when its
 * sign-in happened (`auth_time`, or a database session's `createdAt`) and what it proved (a JWT's
 * `amr` claim, a database session's `factors`: RFC 8176 values such as `pwd`, `otp`, `hwk`,
 * `user`, and Gatehouse's `email` and `fed`). Proving it again is signing in again: the answer
 * names the sign-in page, which comes back to the request's URL with a fresh session.
 */
import { resolveConfig } from "../../config.js";
import { Context } from "../../context.js";
import { partsOf } from "../../feature.js";
import { sessionRequest } from "../../request.js";
import { identifySession } from "../../session/index.js";
import type { AuthConfig } from "../../types/config.js";

/** Options of {@link requireRecentAuth}. */
export interface RecentAuthOptions {
  /** How long ago the proof may have been, in seconds. Default 600 (ten minutes). */
  maxAge?: number;
  /**
   * What the proof must include: each listed `amr` value, or `"mfa"` for any two kinds of factor
   * (something known: `pwd`; something held: `otp`, `hwk`, `swk`, `email`; something the user
   * is: `user`, as a passkey's user verification). Default: nothing beyond a recent sign-in.
   */
  factors?: readonly string[];
}

/** The answer of {@link requireRecentAuth}. */
export type RecentAuth =
  | { ok: true; userId: string; authTime: Date; factors: string[] }
  | {
      ok: false;
      /** No session; a sign-in too long ago (or of unknown time); or without the factors asked. */
      reason: "unauthenticated" | "stale" | "factors";
      /** The sign-in page, coming back to the request's URL: where to send the browser. */
      signInUrl: string;
    };

const KINDS: Readonly<Record<string, string>> = {
  pwd: "knowledge",
  pin: "knowledge",
  otp: "possession",
  hwk: "possession",
  swk: "possession",
  sms: "possession",
  email: "possession",
  user: "inherence",
  fpt: "inherence",
  face: "inherence",
};

/** Whether `proved` satisfies `asked` (see {@link RecentAuthOptions.factors}). */
export function satisfies(proved: readonly string[], asked: readonly string[]): boolean {
  return asked.every((factor) => {
    if (factor !== "mfa") return proved.includes(factor);
    const kinds = new Set(proved.map((f) => KINDS[f]).filter((kind) => kind !== undefined));
    return kinds.size >= 2;
  });
}

/**
 * Whether the request's session may run a sensitive action now: signed in within `maxAge`
 * seconds, with the `factors` asked. A session whose sign-in time or factors are unknown (issued
 * before Gatehouse recorded them, or kept by an adapter without session metadata) does not
 * qualify: the user signs in again.
 *
 * @example
 * ```ts
 * import { requireRecentAuth } from "@gatehousejs/core";
 *
 * const check = await requireRecentAuth(request, config, { maxAge: 300, factors: ["mfa"] });
 * if (!check.ok) return Response.redirect(check.signInUrl, 303);
 * ```
 */
export async function requireRecentAuth(
  request: Request,
  config: AuthConfig,
  options: RecentAuthOptions = {},
): Promise<RecentAuth> {
  const { maxAge = 600, factors: asked = [] } = options;
  const resolved = resolveConfig(config);
  partsOf(resolved);
  const page = resolved.pages.signIn ?? `${resolved.basePath}/signin`;
  const back = new URL(request.url);
  const signInUrl = new URL(page, back.origin);
  signInUrl.searchParams.set("callbackUrl", back.href);
  const refuse = (reason: "unauthenticated" | "stale" | "factors"): RecentAuth => ({
    ok: false,
    reason,
    signInUrl: signInUrl.href,
  });
  const req = sessionRequest(request, resolved);
  const ref = req ? await identifySession(new Context(req, resolved)) : null;
  if (!ref) return refuse("unauthenticated");
  if (!ref.createdAt || Date.now() - ref.createdAt.valueOf() > maxAge * 1000) {
    return refuse("stale");
  }
  const proved = ref.factors ?? [];
  if (asked.length > 0 && !satisfies(proved, asked)) return refuse("factors");
  return { ok: true, userId: ref.userId, authTime: ref.createdAt, factors: proved };
}
