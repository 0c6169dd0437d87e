/**
 * The back-channel logout receiver (OpenID Connect Back-Channel Logout 1.0): the provider POSTs a
 * signed `logout_token` naming a user (`sub`) and/or one of its sessions (`sid`), and the sessions
 * that sign-in created here end. Server to server: no CSRF token, the provider's signature is the
 * proof. A token that fails any check answers 400 `invalid_request` and ends nothing.
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { accountOwnerId, capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { sha256Hex } from "../../crypto/hash.js";
import type { OAuthProvider } from "../../oauth/provider.js";
import { authorizationServer } from "../../oauth/server.js";
import { jsonResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import { rateLimitsOf } from "../rate-limit/state.js";

const LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** How far in the past (and future, for clock skew) a logout token's `iat` may be, in seconds. */
const MAX_AGE = 300;
const SKEW = 60;
/**
 * Whether this logout token's `jti` is new: counted in the configuration's counter store (the
 * rate-limit store), so replays are caught across every process that shares it (Redis,
 * PostgreSQL); the default memory store catches them within one process. An entry outlives the
 * window in which the token's `iat` is accepted.
 */
async function firstUse(ctx: Context, iss: unknown, jti: unknown): Promise<boolean> {
  const key = `backchannel-jti:${await sha256Hex(JSON.stringify([iss, jti]))}`;
  const { count } = await rateLimitsOf(ctx.config).store.hit(key, (MAX_AGE + 2 * SKEW) * 1000);
  return count === 1;
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function keySet(uri: string): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(uri);
  if (!set) {
    set = createRemoteJWKSet(new URL(uri));
    keySets.set(uri, set);
  }
  return set;
}

class InvalidLogoutToken extends Error {}

/** Verifies the logout token against the provider; returns its claims or throws. */
async function verifyLogoutToken(provider: OAuthProvider, token: string): Promise<JWTPayload> {
  const as = await authorizationServer(provider);
  if (!as.jwks_uri) throw new InvalidLogoutToken("The provider publishes no jwks_uri");
  const { payload } = await jwtVerify(token, keySet(as.jwks_uri), {
    issuer: as.issuer,
    audience: provider.clientId,
    // The spec allows `exp` to be absent; `iat` is checked below.
    requiredClaims: ["iat", "jti", "events"],
    clockTolerance: SKEW,
  });
  const now = Math.floor(Date.now() / 1000);
  const iat = payload.iat as number;
  if (iat > now + SKEW || iat < now - MAX_AGE) {
    throw new InvalidLogoutToken("The logout token's iat is out of range");
  }
  const events = payload.events as Record<string, unknown> | undefined;
  if (typeof events !== "object" || events === null || typeof events[LOGOUT_EVENT] !== "object") {
    throw new InvalidLogoutToken("The logout token has no back-channel logout event");
  }
  if ("nonce" in payload) throw new InvalidLogoutToken("A logout token must not carry a nonce");
  const sub = payload.sub;
  const sid = payload.sid;
  if ((typeof sub !== "string" || sub === "") && (typeof sid !== "string" || sid === "")) {
    throw new InvalidLogoutToken("The logout token names neither sub nor sid");
  }
  if (typeof sub !== "string" || sub === "") {
    // Sessions are found through the account the provider's `sub` names; a sid alone names none
    // here, and a 200 would tell the provider that a logout happened when none did.
    throw new InvalidLogoutToken(
      "The logout token names a sid but no sub; sessions are found by sub",
    );
  }
  if (typeof payload.jti !== "string" || payload.jti === "") {
    throw new InvalidLogoutToken("The logout token has no jti");
  }
  return payload;
}

const invalid = () => jsonResult({ error: "invalid_request" }, 400, noStoreJson);
const noStoreJson = { "Content-Type": "application/json", "Cache-Control": "no-store" };

/** POST /backchannel-logout/<provider>. */
export async function backchannelLogout(ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.config.providerById.get(ctx.req.providerId ?? "") as
    | (OAuthProvider & { type: string })
    | undefined;
  const logger = ctx.config.logger;
  const token = ctx.req.body?.logout_token;
  if (provider?.type !== "oidc" || typeof token !== "string" || token === "") {
    logger.warn(
      "client-error",
      new Error("Back-channel logout: no logout_token for an OIDC provider"),
    );
    return invalid();
  }
  let claims: JWTPayload;
  try {
    claims = await verifyLogoutToken(provider, token);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "unknown";
    logger.warn("client-error", new Error(`Back-channel logout refused: ${reason}`));
    return invalid();
  }
  if (!(await firstUse(ctx, claims.iss, claims.jti))) {
    logger.warn("client-error", new Error("Back-channel logout refused: the jti was replayed"));
    return invalid();
  }
  await endSessions(ctx, provider.id, claims.sub, claims.sid as string | undefined);
  return { status: 200, headers: noStoreJson, body: {} };
}

/**
 * Ends the sessions the token names. Database strategy: the user's sessions with that
 * `providerSid`, or all of them by `sub` (also when no session of theirs records a provider sid:
 * ending too much is the safe side). JWT strategy: through the revocation store.
 */
async function endSessions(
  ctx: Context,
  providerId: string,
  sub: string | undefined,
  sid: string | undefined,
): Promise<void> {
  const { adapter, session } = ctx.config;
  const userId = sub
    ? await accountOwnerId(ctx.config, { provider: providerId, providerAccountId: sub })
    : undefined;
  if (!userId) return;
  const epochEnd = new Date(Date.now() + session.maxAge * 1000);
  if (session.strategy === "database" && adapter) {
    const can = capabilitiesOf(ctx.config);
    const rows = (await can.listSessions?.(userId)) ?? undefined;
    const matching = sid && rows ? rows.filter((row) => row.providerSid === sid) : [];
    if (matching.length > 0) {
      for (const row of matching) await can.deleteSession?.(row.sessionToken);
      return;
    }
    if (can.deleteSessions) {
      await can.deleteSessions(userId);
    } else if (rows) {
      for (const row of rows) await can.deleteSession?.(row.sessionToken);
    }
    return;
  }
  const store = session.revocation?.store;
  if (!store) {
    ctx.config.logger.warn(
      "client-error",
      new Error("Back-channel logout: JWT sessions need session.revocation to be ended"),
    );
    return;
  }
  if (sid && store.listSessions) {
    const records = (await store.listSessions(userId)).filter((r) => r.providerSid === sid);
    if (records.length > 0) {
      for (const r of records) {
        await store.revokeSession({ userId, sessionId: r.sessionId, expires: r.expires });
      }
      return;
    }
  }
  await store.revokeUser({ userId, at: Math.floor(Date.now() / 1000), expires: epochEnd });
}
