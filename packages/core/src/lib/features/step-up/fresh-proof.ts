/**
 * The check the built-in sensitive actions run before their own (a new password or address,
 * removing a password, ending every session): when a feature says the user needs it (two-factor
 * sign-in, for a user who has it on: ../../feature.ts `needsFreshProof`), the session must come
 * from a sign-in within {@link FRESH_PROOF_MAX_AGE} seconds, so that a session cookie stolen
 * after the sign-in cannot change what protects the account. Proving it again is signing in
 * again (which asks the second factor again): the refusal, `ReauthenticationRequired` (403),
 * names the sign-in page, coming back to the action's page. The security log records it
 * (`stepUpRequired`, the action as its reason).
 */
import type { Context } from "../../context.js";
import { partsOf } from "../../feature.js";
import { jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import type { SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import { recordSecurityEvent } from "../security-log/log.js";
import type { SecurityEventType } from "../security-log/options.js";

/**
 * The security-log event of a sensitive action sent to sign in again (./types.ts adds it to the
 * open list; this folder is also compiled where that is not in the program).
 */
const STEP_UP_EVENT = "stepUpRequired" as string as SecurityEventType;

/** How recent the sign-in behind a sensitive action must be, in seconds. */
export const FRESH_PROOF_MAX_AGE = 10 * 60;

export const REAUTHENTICATION_MESSAGE =
  "Sign in again to confirm it is you, then try again within ten minutes.";

/**
 * Whether the session's sign-in happened within `seconds` (its `createdAt`: a JWT's `auth_time`, a
 * database session's creation); a session that does not say is not recent.
 */
export function signedInWithin(ref: SessionRef, seconds: number): boolean {
  const at = ref.createdAt?.valueOf();
  return at !== undefined && Date.now() - at <= seconds * 1000;
}

/** Whether the session may run a sensitive action now (see the module comment). */
export async function hasFreshProof(ctx: Context, ref: SessionRef): Promise<boolean> {
  if (!(await partsOf(ctx.config).needsFreshProof(ctx, ref.userId))) return true;
  return signedInWithin(ref, FRESH_PROOF_MAX_AGE);
}

/**
 * The refusal of an action without a fresh proof: JSON 403 with the sign-in page's URL, or, for a
 * browser's form, the sign-in page itself, which comes back to `back` (the action's page), or, for
 * a JSON request that gave a `callbackUrl`, to that page.
 */
export async function reauthenticate(
  ctx: Context,
  json: boolean,
  back: string,
  refused: { userId: string; action: string },
): Promise<ResponseInternal> {
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  // A `fetch` caller that named its own page (`callbackUrl`, checked by the redirect callback)
  // comes back there; otherwise the action's own page.
  const asked = ctx.req.body?.callbackUrl ?? ctx.req.query.callbackUrl;
  const target = json && typeof asked === "string" && asked !== "" ? await ctx.callbackUrl() : back;
  const signInUrl = pageUrl(ctx, page, { callbackUrl: target });
  await recordSecurityEvent(ctx, {
    userId: refused.userId,
    type: STEP_UP_EVENT,
    reason: refused.action,
  });
  const logged = new Error("A sensitive action needs a fresh sign-in");
  logged.name = "ReauthenticationRequired";
  ctx.config.logger.warn("client-error", logged);
  if (!json) return redirectResult(signInUrl);
  return jsonResult(
    { error: "ReauthenticationRequired", message: REAUTHENTICATION_MESSAGE, signInUrl },
    403,
    noStore,
  );
}
