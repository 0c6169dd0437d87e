/**
 * When an email link or code proves the address of a user whose address nobody had proven, the
 * sessions that user already has may belong to someone else: an app's own sign-up stores any
 * address it is given, and whoever gave it can sign in through the app's password check
 * (a Credentials provider) before the real owner ever sees a link. Proving the address ends
 * every one of those sessions before the owner's new session is issued (docs/security.md,
 * "Linking and sign-up rules").
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { ResolvedConfig } from "../../config.js";
import type { Context } from "../../context.js";
import { newSessionId } from "../../session/ids.js";
import type { AdapterUser } from "../../types/models.js";
import { revokeAllUserSessions } from "./manage.js";

/**
 * Whether every session of a user can be ended under this configuration: under the JWT strategy
 * with a revocation store, under the database strategy with an adapter that lists a user's
 * sessions (`listSessionsByUserId`).
 */
export function canEndUserSessions(config: ResolvedConfig): boolean {
  if (config.session.strategy === "jwt") return config.session.revocation !== undefined;
  return capabilitiesOf(config).listSessions !== undefined;
}

/**
 * Whether a user whose address is unproven may hold sessions this configuration cannot end:
 * someone may have signed in through a Credentials provider (a way in Gatehouse does not see),
 * and there is no revocation store (JWT) or no session listing (database) to end that session.
 * An email link then must not adopt the user: its owner would enter an account a stranger is
 * still signed in to.
 */
export function mayHoldUnendingSessions(config: ResolvedConfig): boolean {
  return !canEndUserSessions(config) && config.providers.some((p) => p.type === "credentials");
}

/** What the session issued after the proof needs: the `sid` the revocation spared (JWT). */
export interface AfterAddressProof {
  sessionId?: string;
}

/**
 * Ends every session of `user`, whose address an email link or code has just proven, when that
 * address was unproven until now (`emailVerified` still null on `user`); a user whose address was
 * already proven keeps its sessions. Call it before marking the address verified and before
 * issuing the new session, and pass what it returns to `issueSession`: under the JWT strategy the
 * revocation spares the `sid` chosen here for the new session (revocations have one-second
 * precision, so a new session issued in the same second would otherwise end too).
 *
 * Recorded in the security log as `sessionRevoked` with reason `addressProven`. Without a way to
 * end sessions (see {@link canEndUserSessions}) it ends nothing: the caller refuses the proof
 * beforehand when that matters ({@link mayHoldUnendingSessions}). A store or adapter failure
 * throws, so the address is not marked proven while a stranger's session lives on.
 */
export async function endSessionsOnAddressProof(
  ctx: Context,
  user: AdapterUser,
): Promise<AfterAddressProof> {
  if (user.emailVerified || !canEndUserSessions(ctx.config)) return {};
  const sessionId = ctx.config.session.strategy === "jwt" ? newSessionId() : undefined;
  await revokeAllUserSessions(ctx.config, user.id, sessionId, {
    source: ctx,
    reason: "addressProven",
  });
  return sessionId === undefined ? {} : { sessionId };
}
