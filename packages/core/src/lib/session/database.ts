/**
 * Database sessions: the cookie holds only a random session token; the session lives in the
 * adapter.
 *
 * A session check is one `getSessionAndUser`. An expired session is deleted and its cookie
 * cleared. The expiry slides by `maxAge`, written at most once per `updateAge` (0 = on every
 * check); the cookie is re-sent only when the stored expiry moved, so both always agree.
 *
 * An adapter that lists sessions (`listSessionsByUserId`) also gets the session's metadata at
 * creation (when, how, from which client) and `lastSeenAt` with each expiry write, so recording
 * it costs no extra write. An adapter without it (one written for Auth.js) gets exactly the
 * fields Auth.js sends: an ORM could refuse columns it does not have.
 */
import { keepsSessionMetadata } from "../capabilities.js";
import type { Context } from "../context.js";
import { expireCookie } from "../cookies.js";
import { SessionTokenError } from "../errors.js";
import { emit } from "../events.js";
import type { Cookie } from "../types/config.js";
import type { Account, Adapter, AdapterSession, AdapterUser } from "../types/models.js";
import type { SessionMetadata } from "../types/sessions.js";
import { clientSession } from "./callback.js";
import { requestClient } from "./client.js";
import type { SessionCheck } from "./jwt.js";
import { retryWithin, StoreDeadline } from "./store-deadline.js";

function adapterOf(ctx: Context): Required<Adapter> {
  // Configuration checks guarantee the session methods exist under the database strategy.
  return ctx.config.adapter as Required<Adapter>;
}

function sessionCookie(ctx: Context, session: AdapterSession): Cookie {
  const { name, options } = ctx.cookieOptions.sessionToken;
  return { name, value: session.sessionToken, options: { ...options, expires: session.expires } };
}

function clear(ctx: Context): Cookie[] {
  const { name, options } = ctx.cookieOptions.sessionToken;
  return name in ctx.req.cookies ? [expireCookie(name, options)] : [];
}

/** The stored session and user behind the request's cookie, if live. Deletes an expired one. */
export async function loadDatabaseSession(
  ctx: Context,
): Promise<{ session: AdapterSession; user: AdapterUser } | null | "expired"> {
  const token = ctx.req.cookies[ctx.cookieOptions.sessionToken.name];
  if (!token) return null;
  const adapter = adapterOf(ctx);
  const found = await adapter.getSessionAndUser(token);
  if (!found) return "expired";
  if (found.session.expires.valueOf() < Date.now()) {
    await adapter.deleteSession(token);
    return "expired";
  }
  return found;
}

/** Reads (and on `update`, passes `newSession` to the session callback for) a database session. */
export async function checkDatabaseSession(
  ctx: Context,
  update?: { data: unknown },
): Promise<SessionCheck> {
  const { config } = ctx;
  let found: Awaited<ReturnType<typeof loadDatabaseSession>>;
  try {
    found = await loadDatabaseSession(ctx);
  } catch (cause) {
    config.logger.error(new SessionTokenError("The database session could not be read", { cause }));
    return { session: null, cookies: [] };
  }
  if (found === null) return { session: null, cookies: [] };
  if (found === "expired") return { session: null, cookies: clear(ctx) };

  let { session: stored } = found;
  const { user } = found;
  const { maxAge, updateAge } = config.session;
  const cookies: Cookie[] = [];
  const now = Date.now();
  if (stored.expires.valueOf() - maxAge * 1000 + updateAge * 1000 <= now) {
    const expires = new Date(now + maxAge * 1000);
    const adapter = adapterOf(ctx);
    const updated = await adapter.updateSession({
      sessionToken: stored.sessionToken,
      expires,
      ...(keepsSessionMetadata(config) ? { lastSeenAt: new Date(now) } : {}),
    });
    stored = { ...stored, ...(updated ?? {}), expires: updated?.expires ?? expires };
    cookies.push(sessionCookie(ctx, stored));
  }

  // The token stays in its HttpOnly cookie: a callback that spreads `session` into its answer
  // must not publish it.
  const { sessionToken: _token, ...row } = stored;
  const session = await clientSession(config, {
    strategy: "database",
    session: { ...row, user },
    user,
    ...(update ? { newSession: update.data, trigger: "update" } : {}),
  });
  if (session) await emit(config, "session", { session });
  return { session, cookies };
}

/** Creates the session row after a sign-in and returns its cookie. */
export async function issueDatabaseSession(
  ctx: Context,
  user: AdapterUser,
  account: Account | null,
  factors?: readonly string[],
): Promise<Cookie[]> {
  const { session } = ctx.config;
  const adapter = adapterOf(ctx);
  const now = new Date();
  const row = {
    sessionToken: session.generateSessionToken(),
    userId: user.id,
    expires: new Date(now.valueOf() + session.maxAge * 1000),
  };
  const created = await adapter.createSession(
    keepsSessionMetadata(ctx.config)
      ? { ...row, ...(await sessionMetadata(ctx, account, now, factors)) }
      : row,
  );
  return [sessionCookie(ctx, created)];
}

/** What a new session records about how and from where the user signed in. */
async function sessionMetadata(
  ctx: Context,
  account: Account | null,
  now: Date,
  factors: readonly string[] | undefined,
): Promise<SessionMetadata> {
  const provider = account?.provider ?? ctx.req.providerId ?? null;
  const providerType =
    account?.type ?? (provider ? ctx.config.providerById.get(provider)?.type : undefined) ?? null;
  const proved = factors && factors.length > 0 ? factors.join(" ") : null;
  return {
    createdAt: now,
    lastSeenAt: now,
    provider,
    providerType,
    factors: proved,
    ...(await requestClient(ctx)),
  };
}

/**
 * Deletes the session row (retried under `deadline`), then fires `signOut` with it and returns the
 * cookie deletion. When the row cannot be deleted in time this throws `SessionStoreUnavailable`,
 * fires nothing and clears nothing: the session still works, and the caller must say so.
 */
export async function endDatabaseSession(
  ctx: Context,
  deadline: StoreDeadline = new StoreDeadline(),
): Promise<Cookie[]> {
  const token = ctx.req.cookies[ctx.cookieOptions.sessionToken.name];
  if (!token) return [];
  const adapter = adapterOf(ctx);
  const session = await retryWithin(deadline, "deleteSession", () => deleteRow(adapter, token));
  await emit(ctx.config, "signOut", { session });
  return clear(ctx);
}

/**
 * Deletes one session row. Some adapters (an ORM's) throw when the row is already gone: a
 * session that no longer exists has ended, so such a failure counts as done when the row cannot
 * be read either. A store that is down fails that read too, and the first error stands.
 */
async function deleteRow(
  adapter: Required<Adapter>,
  token: string,
): Promise<AdapterSession | null | undefined | void> {
  try {
    return await adapter.deleteSession(token);
  } catch (error) {
    const still = await (async () => adapter.getSessionAndUser(token))().catch(() => undefined);
    if (still === null) return null;
    throw error;
  }
}
