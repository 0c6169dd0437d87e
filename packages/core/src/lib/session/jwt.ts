/**
 * JWT sessions: the whole session lives in an encrypted cookie.
 *
 * A session check is one decrypt. The cookie is re-issued (one encrypt) only when the `jwt`
 * callback changed the token, when the client sent an update, or when `updateAge` seconds have
 * passed since the token was issued (`updateAge: 0` re-issues on every check). Between re-issues
 * the session keeps the expiry it was issued with, and `expires` in the session says so.
 *
 * Every token carries a session id (`sid`) and its sign-in time (`auth_time`), set at issuance and
 * kept across re-issues; a token issued without them (by Auth.js, or before session management)
 * gets them at its first re-issue. With `session.revocation`, the check asks the revocation store
 * once (after the decrypt, before the `jwt` callback); without it, it makes no call at all.
 */

import type { Context } from "../context.js";
import { clearChunked, readChunked, writeChunked } from "../cookies.js";
import { JWTSessionError, SignOutError } from "../errors.js";
import { emit } from "../events.js";
import { partsOf } from "../feature.js";
import { decode, pristineJson } from "../jwt.js";
import type { Cookie } from "../types/config.js";
import type { Account, JWT, Profile, Session, User } from "../types/models.js";
import { clientSession } from "./callback.js";
import { jwtSessionId, jwtSessionStart, LEGACY_SESSION_ID, newSessionId } from "./ids.js";
import { StoreDeadline } from "./store-deadline.js";

/** The result of a session check. */
export interface SessionCheck {
  session: Session | null;
  cookies: Cookie[];
}

function clear(ctx: Context): Cookie[] {
  const { name, options } = ctx.cookieOptions.sessionToken;
  return clearChunked(ctx.req.cookies, name, options);
}

/** Encrypts `token` into the session cookie (chunked as needed) with the session's expiry. */
export async function writeToken(
  ctx: Context,
  token: JWT,
): Promise<{ cookies: Cookie[]; expires: Date }> {
  const { config } = ctx;
  const { name, options } = ctx.cookieOptions.sessionToken;
  giveSessionClaims(token);
  const value = await config.jwt.encode({
    token,
    secret: config.secrets,
    salt: name,
    maxAge: config.jwt.maxAge,
  });
  const expires = new Date(Date.now() + config.session.maxAge * 1000);
  return { cookies: writeChunked(ctx.req.cookies, name, value, { ...options, expires }), expires };
}

/** Reads (and on `update`, updates) the JWT session of a request. */
export async function checkJwtSession(
  ctx: Context,
  update?: { data: unknown },
): Promise<SessionCheck> {
  const { config } = ctx;
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  if (!value) return { session: null, cookies: [] };

  let decoded: JWT | null;
  try {
    decoded = await config.jwt.decode({ token: value, secret: config.secrets, salt: name });
  } catch (cause) {
    config.logger.error(
      cause instanceof JWTSessionError
        ? cause
        : new JWTSessionError("The session token could not be decoded", { cause }),
    );
    return { session: null, cookies: clear(ctx) };
  }
  if (!decoded) return { session: null, cookies: clear(ctx) };

  const guard = partsOf(config).sessionGuard;
  if (guard) {
    let revoked: boolean;
    try {
      revoked = await guard.isRevoked(decoded);
    } catch (cause) {
      // Fail closed, but keep the cookie: the store being down is not the client's doing.
      config.logger.error(
        new JWTSessionError("The revocation store could not be checked", { cause }),
      );
      return { session: null, cookies: [] };
    }
    if (revoked) {
      await emit(config, "signOut", { token: decoded });
      return { session: null, cookies: clear(ctx) };
    }
  }

  // Snapshot the claims only when a custom callback could change them (even in place). A token
  // the built-in decode served from memory, that no guard has seen, has its JSON remembered.
  const before = config.identityJwtCallback
    ? undefined
    : ((config.jwt.decode === decode && !guard ? pristineJson(decoded) : undefined) ??
      JSON.stringify(decoded));
  let token: JWT | null | undefined;
  try {
    token = await config.callbacks.jwt(
      update ? { token: decoded, trigger: "update", session: update.data } : { token: decoded },
    );
  } catch (cause) {
    // A server fault, not a bad token: answer "no session" but keep the cookie.
    config.logger.error(new JWTSessionError("The jwt callback threw", { cause }));
    return { session: null, cookies: [] };
  }
  if (token === null || token === undefined) return { session: null, cookies: clear(ctx) };

  const now = Math.floor(Date.now() / 1000);
  const issuedAt = typeof decoded.iat === "number" ? decoded.iat : 0;
  const reissue =
    update !== undefined ||
    now - issuedAt >= config.session.updateAge ||
    (before !== undefined && JSON.stringify(token) !== before);
  let cookies: Cookie[] = [];
  let expires: Date;
  if (reissue) {
    keepSessionClaims(token, decoded);
    giveSessionClaims(token, decoded);
    ({ cookies, expires } = await writeToken(ctx, token));
    if (guard) await guard.issued(ctx, token, expires);
  } else {
    expires = new Date((issuedAt + config.session.maxAge) * 1000);
  }

  const session = await clientSession(config, {
    strategy: "jwt",
    session: {
      user: { name: token.name, email: token.email, image: token.picture },
      expires: expires.toISOString(),
      // Set by getAccessToken when a provider refused the refresh token.
      ...(token.error === "RefreshTokenError" ? { error: token.error } : {}),
    },
    token,
  });
  if (session) await emit(config, "session", { session, token });
  return { session, cookies };
}

/**
 * Issues the session cookie after a successful sign-in. Returns no cookie when `jwt` says null.
 * `sessionId` is a `sid` chosen beforehand (one a revocation of the user already spares).
 */
export async function issueJwtSession(
  ctx: Context,
  params: {
    user: User;
    account: Account | null;
    profile?: Profile;
    isNewUser: boolean;
    sessionId?: string;
    factors?: readonly string[];
  },
): Promise<Cookie[]> {
  const { user, account, profile, isNewUser } = params;
  const { sessionClaims, sessionGuard } = partsOf(ctx.config);
  const sid = params.sessionId ?? newSessionId();
  const now = Math.floor(Date.now() / 1000);
  const start =
    sessionGuard?.sessionStart && typeof user.id === "string"
      ? await sessionGuard.sessionStart(user.id, sid, now)
      : now;
  const session: JWT = { sid, auth_time: start };
  // What the sign-in proved, as OpenID Connect's `amr` (step-up reads it: requireRecentAuth).
  if (params.factors && params.factors.length > 0) session.amr = [...params.factors];
  const initial: JWT = { name: user.name, email: user.email, picture: user.image, sub: user.id };
  for (const claims of sessionClaims) Object.assign(initial, claims(ctx.config, { account }));
  const token = await ctx.config.callbacks.jwt({
    token: { ...initial, ...session },
    user,
    account,
    profile,
    isNewUser,
    trigger: isNewUser ? "signUp" : "signIn",
  });
  if (token === null || token === undefined) return clear(ctx);
  keepSessionClaims(token, session);
  const written = await writeToken(ctx, token);
  if (sessionGuard) {
    const provider = account?.provider ?? ctx.req.providerId ?? null;
    const providerType =
      account?.type ?? (provider ? ctx.config.providerById.get(provider)?.type : undefined) ?? null;
    await sessionGuard.issued(ctx, token, written.expires, { provider, providerType });
  }
  return written.cookies;
}

/**
 * Puts back the session claims a custom `jwt` callback dropped (one that builds a new object):
 * the session id, the sign-in time and what the sign-in proved must survive every re-issue.
 */
function keepSessionClaims(token: JWT, from: JWT): void {
  if (token.sid === undefined && typeof from.sid === "string") token.sid = from.sid;
  if (token.auth_time === undefined && typeof from.auth_time === "number") {
    token.auth_time = from.auth_time;
  }
  if (token.amr === undefined && Array.isArray(from.amr)) token.amr = from.amr;
}

/**
 * Gives a token issued without a `sid` (by Auth.js, or before session management) its session
 * claims when it is re-issued, so that from then on it can be listed and ended on its own: a
 * fresh `sid`, and as `auth_time` the time it was last issued (`from`'s `iat`: its sign-in time is
 * unknown). Keeping that time rather than the re-issue's means a revocation of the user that lands
 * between the check and this re-issue still ends the new token.
 */
function giveSessionClaims(token: JWT, from: JWT = token): void {
  if (jwtSessionId(token) !== LEGACY_SESSION_ID) return;
  token.sid = newSessionId();
  if (typeof token.auth_time !== "number") {
    token.auth_time = jwtSessionStart(from) || Math.floor(Date.now() / 1000);
  }
}

/**
 * Re-issues the request's own token when it has no `sid` and belongs to `userId`, with a fresh
 * `sid`, at this response: what "sign out everywhere else" keeps, since the id `legacy` is shared
 * by every token without one. Returns the new `sid`, or null when the request holds no such token.
 */
export async function giveLegacyTokenSessionId(
  ctx: Context,
  userId: string,
): Promise<string | null> {
  const { config } = ctx;
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  if (!value) return null;
  let token: JWT | null;
  try {
    token = await config.jwt.decode({ token: value, secret: config.secrets, salt: name });
  } catch {
    return null;
  }
  if (!token || token.sub !== userId || jwtSessionId(token) !== LEGACY_SESSION_ID) return null;
  const { cookies, expires } = await writeToken(ctx, token);
  ctx.setCookies.push(...cookies);
  await partsOf(config).sessionGuard?.issued(ctx, token, expires);
  return jwtSessionId(token);
}

/**
 * Ends the JWT session: with a revocation store its `sid` is revoked first (retried under
 * `deadline`), then the `signOut` event gets the token and every chunk is cleared. When the
 * revocation cannot be written in time this throws `SessionStoreUnavailable`, fires nothing and
 * clears nothing: a copy of the cookie would still work, so the caller must not claim success.
 */
export async function endJwtSession(
  ctx: Context,
  deadline: StoreDeadline = new StoreDeadline(),
): Promise<Cookie[]> {
  const { config } = ctx;
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  if (!value) return [];
  let token: JWT | null = null;
  try {
    token = await config.jwt.decode({ token: value, secret: config.secrets, salt: name });
  } catch (cause) {
    config.logger.error(new SignOutError("The session token could not be decoded", { cause }));
  }
  const guard = partsOf(config).sessionGuard;
  if (guard && token) await guard.signedOut(ctx, token, deadline);
  await emit(config, "signOut", { token });
  return clear(ctx);
}
