/**
 * The signed-in user's own sessions (a Gatehouse addition to the protocol):
 * `GET /sessions` lists them, the current one marked; `POST /sessions/revoke` ends one
 * (`{ id }`), all but the current one (`{ others: true }`) or all of them (`{ all: true }`, which
 * also signs this browser out). Answers are JSON, never redirects; the session is found from the
 * cookie alone, so no user can reach another user's sessions. Ending every other session asks a
 * fresh sign-in of a user whose account needs one (../step-up/fresh-proof.ts).
 */

import { unavailableJson } from "../../actions/signout-unavailable.js";
import type { Context } from "../../context.js";
import { AdapterError, AuthError, MissingCSRF, SessionStoreUnavailable } from "../../errors.js";
import { jsonResult, noStore } from "../../response.js";
import { LEGACY_SESSION_ID } from "../../session/ids.js";
import { endSession, identifySession, type SessionRef } from "../../session/index.js";
import {
  retryWithin,
  STORE_RETRY_AFTER_SECONDS,
  StoreDeadline,
} from "../../session/store-deadline.js";
import type { ResponseInternal } from "../../types/config.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { hasFreshProof, reauthenticate } from "../step-up/fresh-proof.js";
import {
  listUserSessions,
  revokeAllUserSessions,
  revokeUserSession,
  sessionInfo,
} from "./manage.js";

function unauthenticated(): ResponseInternal {
  return jsonResult(
    { error: "Unauthenticated", message: "Sign in to manage sessions" },
    401,
    noStore,
  );
}

function mistake(ctx: Context, status: 400 | 403, error: string, message: string) {
  const logged = new Error(message);
  logged.name = error;
  ctx.config.logger.warn("client-error", logged);
  return jsonResult({ error, message }, status, noStore);
}

/**
 * A server fault, with one error line. A store that is down or did not answer in time (whatever
 * the store or its driver threw) is a `503` with `Retry-After`: the client may try again. A
 * Gatehouse error (a missing adapter method, no revocation store) is the configuration: a `500`.
 */
function fault(ctx: Context, cause: unknown): ResponseInternal {
  const storeFailed = !(cause instanceof AuthError) || cause instanceof AdapterError;
  if (cause instanceof SessionStoreUnavailable || storeFailed) {
    const error =
      cause instanceof SessionStoreUnavailable
        ? cause
        : new SessionStoreUnavailable(
            "The session store failed while sessions were read or revoked",
            STORE_RETRY_AFTER_SECONDS,
            { cause },
          );
    ctx.config.logger.error(error);
    return unavailableJson(error, "The sessions could not be read or revoked right now.");
  }
  ctx.config.logger.error(
    cause instanceof AuthError
      ? cause
      : new AuthError("The sessions could not be read or revoked", { cause }),
  );
  return jsonResult(
    { error: "Configuration", message: "Sessions could not be managed. Check the server logs." },
    500,
    noStore,
  );
}

/** Whether JWT sessions other than this browser's can be listed and ended. */
const canReachOthers = (ctx: Context) =>
  ctx.config.session.strategy === "database" || ctx.config.session.revocation !== undefined;

/** Who the request is signed in as; the store's reads are retried until `deadline`. */
function identify(ctx: Context, deadline: StoreDeadline): Promise<SessionRef | null> {
  return retryWithin(deadline, "the session lookup", () => identifySession(ctx));
}

/** GET /sessions */
export async function listSessionsAction(ctx: Context): Promise<ResponseInternal> {
  const deadline = new StoreDeadline();
  try {
    const ref = await identify(ctx, deadline);
    if (!ref) return unauthenticated();
    const sessions = canReachOthers(ctx)
      ? await retryWithin(deadline, "the session list", () =>
          listUserSessions(ctx.config, ref.userId),
        )
      : [];
    if (!sessions.some((s) => s.id === ref.sessionId)) sessions.unshift(describeCurrent(ref));
    for (const s of sessions) s.current = s.id === ref.sessionId;
    return jsonResult({ sessions }, 200, noStore);
  } catch (cause) {
    return fault(ctx, cause);
  }
}

/** The current JWT session when the store did not list it (no store, or no record). */
function describeCurrent(ref: SessionRef) {
  return sessionInfo(ref.sessionId, ref.token ? "jwt" : "database", ref.expires, {
    createdAt: ref.createdAt,
  });
}

type Revocation = { id: string } | { others: true } | { all: true };

const flag = (value: unknown) => value === true || value === "true";

/** Exactly one of `id`, `others`, `all`; anything else is refused. */
function revocationOf(body: Record<string, unknown> | undefined): Revocation | null {
  if (!body) return null;
  const asked: Revocation[] = [];
  if (body.id !== undefined) {
    if (typeof body.id !== "string" || body.id === "") return null;
    asked.push({ id: body.id });
  }
  if (body.others !== undefined) {
    if (!flag(body.others)) return null;
    asked.push({ others: true });
  }
  if (body.all !== undefined) {
    if (!flag(body.all)) return null;
    asked.push({ all: true });
  }
  return asked.length === 1 ? (asked[0] ?? null) : null;
}

/** POST /sessions/revoke */
export async function revokeSessionsAction(ctx: Context): Promise<ResponseInternal> {
  if (!ctx.config.skipCSRF && !(await ctx.csrf()).verified) {
    const error = new MissingCSRF("The CSRF token is missing or does not match its cookie");
    ctx.config.logger.warn("client-error", error);
    return jsonResult({ error: error.type, message: error.message }, 403, noStore);
  }
  const deadline = new StoreDeadline();
  let ref: SessionRef | null;
  try {
    ref = await identify(ctx, deadline);
  } catch (cause) {
    return fault(ctx, cause);
  }
  if (!ref) return unauthenticated();
  const asked = revocationOf(ctx.req.body);
  if (!asked) {
    return mistake(
      ctx,
      400,
      "BadRequest",
      'The body must hold exactly one of "id" (a session id), "others": true or "all": true',
    );
  }
  try {
    // Ending every other session is sensitive: for a user whose account needs it (two-factor),
    // only with a fresh sign-in, or a stolen session could sign the owner out everywhere.
    if (!("id" in asked) && !(await hasFreshProof(ctx, ref))) {
      return reauthenticate(ctx, true, ctx.origin, {
        userId: ref.userId,
        action: "sessions/revoke",
      });
    }
    // Not retried as a whole (a revocation may re-issue this browser's cookie), but bounded.
    const revoked = await deadline.race("the revocation", revoke(ctx, ref, asked, deadline));
    return jsonResult({ revoked }, 200, noStore);
  } catch (cause) {
    return fault(ctx, cause);
  }
}

async function revoke(
  ctx: Context,
  ref: SessionRef,
  asked: Revocation,
  deadline: StoreDeadline,
): Promise<number> {
  const { config } = ctx;
  const reachOthers = canReachOthers(ctx);
  if ("id" in asked) {
    if (asked.id === ref.sessionId) {
      ctx.setCookies.push(...(await endSession(ctx, deadline)));
      await recordSecurityEvent(ctx, {
        type: "sessionRevoked",
        userId: ref.userId,
        sessionId: ref.sessionId,
        reason: "revokedByUser",
      });
      return 1;
    }
    if (!reachOthers) return 0;
    const cause = { source: ctx, reason: "revokedByUser" };
    return (await revokeUserSession(config, ref.userId, asked.id, cause)) ? 1 : 0;
  }
  if ("others" in asked) {
    if (!reachOthers) return 0;
    const cause = { source: ctx, reason: "signOutOthers" };
    return revokeAllUserSessions(config, ref.userId, ref.sessionId, cause);
  }
  // All: every other session first, then this browser's own (its `signOut` event fires, its
  // cookie is cleared). A store that fails half-way then leaves this browser signed in, able to
  // ask again, rather than signed out with other sessions still live. A token without `sid` is
  // not spared: the user's epoch ends it, as it cannot be revoked on its own.
  const cause = { source: ctx, reason: "signOutEverywhere" };
  if (!reachOthers) {
    ctx.setCookies.push(...(await endSession(ctx, deadline)));
    await recordSecurityEvent(ctx, {
      type: "sessionRevoked",
      userId: ref.userId,
      sessionId: null,
      reason: cause.reason,
    });
    return 1;
  }
  const spared = ref.sessionId === LEGACY_SESSION_ID ? undefined : ref.sessionId;
  const others = await revokeAllUserSessions(config, ref.userId, spared, cause);
  deadline.check("ending this browser's session");
  ctx.setCookies.push(...(await endSession(ctx, deadline)));
  return 1 + others;
}
