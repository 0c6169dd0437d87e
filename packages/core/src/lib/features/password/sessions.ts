/**
 * Ending a user's sessions when their password changes hands: every session after a reset or
 * after the owner secured an account (the browser that did it gets a new one), every other
 * session after a change of password (this browser's is re-issued under a new id, so a copy of
 * its old cookie stops working too).
 *
 * Database sessions are deleted (with `listSessionsByUserId`); JWT sessions are revoked in the
 * revocation store (`session.revocation`). A configuration with neither cannot end them: it was
 * warned when it was read (./requirements.ts), and only this browser's session is replaced.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { partsOf } from "../../feature.js";
import { newSessionId, publicSessionId } from "../../session/ids.js";
import { issueSession, type SessionRef } from "../../session/index.js";
import { writeToken } from "../../session/jwt.js";
import type { Cookie } from "../../types/config.js";
import type { AdapterUser, JWT } from "../../types/models.js";
import { revokeAllUserSessions } from "../sessions/manage.js";
import { canEndSessions } from "./requirements.js";
import { publicAccount } from "./store.js";

/**
 * Ends every session of the user. Under the JWT strategy it returns the `sid` it spared, for the
 * session the caller is about to issue (`completeSignIn` takes it as `sessionId`).
 */
export async function endEverySession(
  ctx: Context,
  userId: string,
  reason: string,
): Promise<{ sessionId?: string }> {
  if (!canEndSessions(ctx.config)) return {};
  const sessionId = ctx.config.session.strategy === "jwt" ? newSessionId() : undefined;
  await revokeAllUserSessions(ctx.config, userId, sessionId, { source: ctx, reason });
  return sessionId === undefined ? {} : { sessionId };
}

/**
 * Ends every session of the user but this browser's, which goes on under a new id: its cookies.
 * Database sessions: a new row, then every other row deleted (this browser's old one with them).
 * JWT sessions: the same claims under a new `sid` (signed in now), then every token of the user
 * but that one revoked. Without a way to end sessions, this browser's is replaced (a database
 * row) or kept as it is (a JWT, which could not be revoked anyway).
 */
export async function keepOnlyThisSession(
  ctx: Context,
  ref: SessionRef,
  user: AdapterUser,
  provider: { id: string },
  reason: string,
): Promise<Cookie[]> {
  const { config } = ctx;
  const cause = { source: ctx, reason };
  const endable = canEndSessions(config);
  if (config.session.strategy === "database") {
    const old = ctx.req.cookies[ctx.cookieOptions.sessionToken.name];
    const account = publicAccount(provider, user.id);
    const cookies = await issueSession(ctx, { user, account, isNewUser: false });
    const token = cookies.find((c) => c.name === ctx.cookieOptions.sessionToken.name)?.value;
    if (endable && token) {
      await revokeAllUserSessions(config, user.id, await publicSessionId(token), cause);
    } else if (old) {
      await capabilitiesOf(config).deleteSession?.(old);
    }
    return cookies;
  }
  if (!endable || !ref.token) return [];
  const token: JWT = {
    ...ref.token,
    sid: newSessionId(),
    auth_time: Math.floor(Date.now() / 1000),
  };
  const { cookies, expires } = await writeToken(ctx, token);
  await partsOf(config).sessionGuard?.issued(ctx, token, expires, {
    provider: provider.id,
    providerType: "password",
  });
  await revokeAllUserSessions(config, user.id, token.sid as string, cause);
  return cookies;
}
