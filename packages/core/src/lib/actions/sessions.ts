/**
 * The signed-in user's own sessions (a Gatehouse addition to the protocol):
 * `GET /sessions` lists them, the current one marked; `POST /sessions/revoke` ends one
 * (`{ id }`), all but the current one (`{ others: true }`) or all of them (`{ all: true }`, which
 * also signs this browser out). Answers are JSON, never redirects; the session is found from the
 * cookie alone, so no user can reach another user's sessions.
 */
import type { Context } from "../context.js";
import { AuthError, MissingCSRF } from "../errors.js";
import { jsonResult, noStore } from "../response.js";
import { recordSecurityEvent } from "../security-log.js";
import { endSession, identifySession, type SessionRef } from "../session/index.js";
import {
  listUserSessions,
  revokeAllUserSessions,
  revokeUserSession,
  sessionInfo,
} from "../session/manage.js";
import type { ResponseInternal } from "../types/config.js";

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

/** A server fault (a missing adapter method, a store that is down): one error line, a 500. */
function fault(ctx: Context, cause: unknown): ResponseInternal {
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

/** GET /sessions */
export async function listSessionsAction(ctx: Context): Promise<ResponseInternal> {
  try {
    const ref = await identifySession(ctx);
    if (!ref) return unauthenticated();
    const sessions = canReachOthers(ctx) ? await listUserSessions(ctx.config, ref.userId) : [];
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
  let ref: SessionRef | null;
  try {
    ref = await identifySession(ctx);
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
    const revoked = await revoke(ctx, ref, asked);
    return jsonResult({ revoked }, 200, noStore);
  } catch (cause) {
    return fault(ctx, cause);
  }
}

async function revoke(ctx: Context, ref: SessionRef, asked: Revocation): Promise<number> {
  const { config } = ctx;
  const reachOthers = canReachOthers(ctx);
  if ("id" in asked) {
    if (asked.id === ref.sessionId) {
      ctx.setCookies.push(...(await endSession(ctx)));
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
  // All: this browser's session first (its `signOut` event fires, its cookie is cleared), then
  // every other one.
  ctx.setCookies.push(...(await endSession(ctx)));
  const cause = { source: ctx, reason: "signOutEverywhere" };
  if (!reachOthers) {
    await recordSecurityEvent(ctx, {
      type: "sessionRevoked",
      userId: ref.userId,
      sessionId: null,
      reason: cause.reason,
    });
    return 1;
  }
  return 1 + (await revokeAllUserSessions(config, ref.userId, undefined, cause));
}
