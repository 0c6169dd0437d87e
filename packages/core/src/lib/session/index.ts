/**
 * One interface over both session strategies.
 */
import { capabilitiesOf } from "../capabilities.js";
import type { Context } from "../context.js";
import { readChunked } from "../cookies.js";
import { JWTSessionError } from "../errors.js";
import { partsOf } from "../feature.js";
import type { Cookie } from "../types/config.js";
import type { Account, AdapterUser, JWT, Profile, User } from "../types/models.js";
import { jwtSessionId, jwtSessionStart, publicSessionId } from "./ids.js";
import { checkJwtSession, endJwtSession, issueJwtSession, type SessionCheck } from "./jwt.js";
import type { StoreDeadline } from "./store-deadline.js";

export type { SessionCheck } from "./jwt.js";

type DatabaseStrategy = typeof import("./database.js");

let databaseStrategy: DatabaseStrategy | undefined;

/**
 * The database strategy, imported by the first request that uses it (JWT apps never do) and
 * then called directly: `use` runs without an extra turn once it is loaded.
 */
function withDatabase<T>(use: (strategy: DatabaseStrategy) => Promise<T>): Promise<T> {
  if (databaseStrategy) return use(databaseStrategy);
  return import("./database.js").then((strategy) => {
    databaseStrategy = strategy;
    return use(strategy);
  });
}

const isDatabase = (ctx: Context) => ctx.config.session.strategy === "database";

/** GET /session (and POST with `update`). */
export function checkSession(ctx: Context, update?: { data: unknown }): Promise<SessionCheck> {
  return isDatabase(ctx)
    ? withDatabase((db) => db.checkDatabaseSession(ctx, update))
    : checkJwtSession(ctx, update);
}

/**
 * The cookies of a new session after a successful sign-in. `sessionId` (JWT strategy only) is
 * the `sid` that `endSessionsOnAddressProof` (./address-proof.ts) spared.
 */
export function issueSession(
  ctx: Context,
  params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    isNewUser: boolean;
    sessionId?: string;
    /** What the sign-in proved (RFC 8176 `amr` values: `pwd`, `otp`, `hwk`, …). */
    factors?: readonly string[];
  },
): Promise<Cookie[]> {
  return isDatabase(ctx)
    ? withDatabase((db) =>
        db.issueDatabaseSession(ctx, params.user as AdapterUser, params.account, params.factors),
      )
    : issueJwtSession(ctx, params);
}

/**
 * Ends the request's session, whichever the strategy, and returns the cookie deletions. Its store
 * calls are retried until `deadline`; past it, `SessionStoreUnavailable` is thrown and the session
 * is still live (docs/sessions.md, "When the session store is down").
 */
export function endSession(ctx: Context, deadline?: StoreDeadline): Promise<Cookie[]> {
  return isDatabase(ctx)
    ? withDatabase((db) => db.endDatabaseSession(ctx, deadline))
    : endJwtSession(ctx, deadline);
}

/**
 * The stored user the request is signed in as, or null: for account linking. With JWT sessions
 * that is the token's subject looked up in the adapter.
 */
export async function signedInUser(ctx: Context): Promise<AdapterUser | null> {
  const adapter = ctx.config.adapter;
  if (!adapter) return null;
  if (isDatabase(ctx)) {
    const found = await withDatabase((db) => db.loadDatabaseSession(ctx));
    return found && found !== "expired" ? found.user : null;
  }
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  const { getUser } = capabilitiesOf(ctx.config);
  if (!value || !getUser) return null;
  try {
    const token = await ctx.config.jwt.decode({
      token: value,
      secret: ctx.config.secrets,
      salt: name,
    });
    if (!token?.sub) return null;
    // A revoked session links nothing to its user.
    const guard = partsOf(ctx.config).sessionGuard;
    if (guard && (await guard.isRevoked(token))) return null;
    return await getUser(token.sub);
  } catch (error) {
    if (error instanceof JWTSessionError) return null;
    throw error;
  }
}

/** The request's session as the `sessions` actions need it: whose, and which. */
export interface SessionRef {
  userId: string;
  /** The public id. */
  sessionId: string;
  /** The JWT, under the JWT strategy (to describe the current session when no store lists it). */
  token?: JWT;
  /** When the user signed in (the proof the session was issued on). */
  createdAt: Date | null;
  expires: Date | null;
  /** What that sign-in proved (RFC 8176 `amr` values), or `null` when the session does not say. */
  factors: string[] | null;
}

/**
 * Who the request is signed in as, and with which session; null when signed out (or the session
 * is expired or revoked). Extends and re-issues nothing: only the session check does that.
 */
/**
 * What a session says its sign-in proved: a JWT's `amr` claim, or a database session's `factors`
 * (space-separated). `null` when it does not say (issued before Gatehouse recorded it, by Auth.js,
 * or kept by an adapter that stores no session metadata).
 */
function factorsOf(value: unknown): string[] | null {
  const list = typeof value === "string" ? value.split(" ") : value;
  if (!Array.isArray(list)) return null;
  const factors = list.filter((f): f is string => typeof f === "string" && /^[a-z]{1,16}$/.test(f));
  return factors.length > 0 ? factors : null;
}

export async function identifySession(ctx: Context): Promise<SessionRef | null> {
  if (isDatabase(ctx)) {
    const found = await withDatabase((db) => db.loadDatabaseSession(ctx));
    if (!found || found === "expired") return null;
    return {
      userId: found.user.id,
      sessionId: await publicSessionId(found.session.sessionToken),
      createdAt: found.session.createdAt ?? null,
      expires: found.session.expires,
      factors: factorsOf(found.session.factors),
    };
  }
  const { config } = ctx;
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  if (!value) return null;
  let token: JWT | null;
  try {
    token = await config.jwt.decode({ token: value, secret: config.secrets, salt: name });
  } catch (error) {
    if (error instanceof JWTSessionError) return null;
    throw error;
  }
  if (!token || typeof token.sub !== "string" || token.sub === "") return null;
  const guard = partsOf(config).sessionGuard;
  if (guard && (await guard.isRevoked(token))) return null;
  const start = jwtSessionStart(token);
  return {
    userId: token.sub,
    sessionId: jwtSessionId(token),
    token,
    createdAt: start > 0 ? new Date(start * 1000) : null,
    expires: typeof token.exp === "number" ? new Date(token.exp * 1000) : null,
    factors: factorsOf(token.amr),
  };
}
