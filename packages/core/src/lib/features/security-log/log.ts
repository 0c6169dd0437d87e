/**
 * The security activity log (docs/sessions.md, "Security activity log"): what happened to a user's account, as the user may see it.
 * Actions record through {@link recordSecurityEvent}, which never throws into the request; apps
 * read through `listSecurityEvents` (./security-log-list.ts).
 *
 * Retention: events older than `securityLog.retentionDays` (default 90) are never listed, and the
 * store's `prune` runs on a write or a read at most once an hour per store in each process.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { ResolvedConfig } from "../../config.js";
import { Context } from "../../context.js";
import { readChunked } from "../../cookies.js";
import { randomUUID } from "../../crypto/hash.js";
import { AdapterError } from "../../errors.js";
import type { Listener } from "../../moments.js";
import { requestClient } from "../../session/client.js";
import { LEGACY_SESSION_ID, publicSessionId } from "../../session/ids.js";
import type {
  SecurityEvent,
  SecurityEventStore,
  SecurityEventType,
  SecurityLogOptions,
} from "./options.js";

/** What an action says about an event; the id, time, client and address are filled in here. */
export interface SecurityEventInput {
  type: SecurityEventType;
  userId: string;
  provider?: string | null;
  providerType?: string | null;
  sessionId?: string | null;
  reason?: string | null;
}

/** Days an event is kept when `securityLog.retentionDays` is not set. */
export const DEFAULT_RETENTION_DAYS = 90;
/** `newClient` looks at this many of the user's latest events (one store read). */
const NEW_CLIENT_WINDOW = 100;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const lastPrune = new WeakMap<SecurityEventStore, number>();

export function retentionMs(options: SecurityLogOptions): number {
  const days = options.retentionDays;
  return (typeof days === "number" && days > 0 ? days : DEFAULT_RETENTION_DAYS) * DAY_MS;
}

/** Prunes at most once an hour per store in this process. Errors reach the caller. */
async function maybePrune(options: SecurityLogOptions, now: number): Promise<void> {
  const last = lastPrune.get(options.store);
  if (last !== undefined && now - last < PRUNE_INTERVAL_MS) return;
  lastPrune.set(options.store, now);
  await options.store.prune(new Date(now - retentionMs(options)));
}

/**
 * On `signIn`: true when none of the user's latest events is a sign-in from the same client
 * description, null when the client is unknown.
 */
async function isNewClient(
  store: SecurityEventStore,
  userId: string,
  client: string | null,
): Promise<boolean | null> {
  if (!client) return null;
  const recent = await store.list(userId, { limit: NEW_CLIENT_WINDOW });
  return !recent.some((e) => e.type === "signIn" && e.client === client);
}

/**
 * Records one event in the security log, if the log is on. Never throws: a store failure is one
 * error log line and the request goes on. With a {@link Context} the event gets the client
 * description and (with `session.recordIp`) the truncated address of the request.
 */
export async function recordSecurityEvent(
  source: Context | ResolvedConfig,
  input: SecurityEventInput,
): Promise<void> {
  const config = source instanceof Context ? source.config : source;
  const options = config.source.securityLog;
  // An event about nobody (a user without an id) is not recorded.
  if (!options || !input.userId) return;
  try {
    const { client, ip } =
      source instanceof Context ? await requestClient(source) : { client: null, ip: null };
    const now = Date.now();
    const event: SecurityEvent = {
      id: randomUUID(),
      userId: input.userId,
      type: input.type,
      at: new Date(now),
      provider: input.provider ?? null,
      providerType: input.providerType ?? null,
      newClient:
        input.type === "signIn" ? await isNewClient(options.store, input.userId, client) : null,
      client,
      ip,
      sessionId: input.sessionId ?? null,
      reason: input.reason ?? null,
    };
    await options.store.record(event);
  } catch (cause) {
    config.logger.error(
      new AdapterError(`The security log could not record a ${input.type} event`, { cause }),
    );
    return;
  }
  await pruneQuietly(config, options);
}

/** {@link maybePrune}, with a failure logged as one line instead of thrown. */
export async function pruneQuietly(
  config: ResolvedConfig,
  options: SecurityLogOptions,
): Promise<void> {
  try {
    await maybePrune(options, Date.now());
  } catch (cause) {
    config.logger.error(new AdapterError("The security log could not be pruned", { cause }));
  }
}

/**
 * The stored user a refused credentials sign-in names, looked up only with the log on: the
 * submitted `email` field, else a `username` that is an address. Never throws.
 */
export async function submittedUserId(
  ctx: Context,
  credentials: Record<string, unknown>,
): Promise<string | null> {
  const lookup = capabilitiesOf(ctx.config).getUserByEmail;
  if (!ctx.config.source.securityLog || !lookup) return null;
  const { email, username } = credentials;
  const address =
    typeof email === "string" ? email : typeof username === "string" ? username : undefined;
  if (!address?.includes("@")) return null;
  try {
    return (await lookup(address.trim()))?.id ?? null;
  } catch (cause) {
    ctx.config.logger.error(
      new AdapterError("The security log could not look up a refused sign-in's user", { cause }),
    );
    return null;
  }
}

/**
 * Who the request's session belongs to, read only with the log on (for `signOut`, before the
 * session ends): one adapter read for a database session, a decryption for a JWT. Never throws.
 */
export async function sessionSubject(
  ctx: Context,
): Promise<{ userId: string; sessionId: string } | null> {
  const { config } = ctx;
  if (!config.source.securityLog) return null;
  const { name } = ctx.cookieOptions.sessionToken;
  try {
    if (config.session.strategy === "database") {
      const token = ctx.req.cookies[name];
      const found = token ? await capabilitiesOf(config).getSessionAndUser?.(token) : null;
      return token && found
        ? { userId: found.session.userId, sessionId: await publicSessionId(token) }
        : null;
    }
    const value = readChunked(ctx.req.cookies, name);
    if (!value) return null;
    const token = await config.jwt.decode({ token: value, secret: config.secrets, salt: name });
    if (!token?.sub) return null;
    const sid = (token as { sid?: unknown }).sid;
    return { userId: token.sub, sessionId: typeof sid === "string" ? sid : LEGACY_SESSION_ID };
  } catch {
    // An unreadable session signs out nobody in particular; endSession logs it.
    return null;
  }
}

/** Whose session a sign-out ends, read before it ends (null: nobody's, or not known in time). */
const signingOut = new WeakMap<Context, { userId: string; sessionId: string } | null>();

/** The security log as a listener of the sign-in moments (registered when the log is on). */
export const securityLogListener: Listener = {
  signingOut: async (ctx, { deadline }) => {
    const subject = await deadline
      .race("the session's subject", sessionSubject(ctx))
      .catch(() => null);
    signingOut.set(ctx, subject);
  },
  signedOut: async (ctx, { deadline }) => {
    const subject = signingOut.get(ctx);
    if (!subject) return;
    // Recorded in the background once the deadline is spent: the session has ended either way.
    const recorded = recordSecurityEvent(ctx, { type: "signOut", ...subject });
    await deadline.race("the signOut security event", recorded).catch(() => {});
  },
  signIn: (ctx, { user, provider }) =>
    recordSecurityEvent(ctx, {
      type: "signIn",
      userId: user.id ?? "",
      provider: provider.id,
      providerType: provider.type,
    }),
  signInRefused: async (ctx, { userId, claimed, provider, error }) => {
    const named = userId ?? (claimed ? await submittedUserId(ctx, claimed) : null);
    if (!named) return;
    await recordSecurityEvent(ctx, {
      type: "signInFailed",
      userId: named,
      provider: provider.id,
      providerType: provider.type,
      reason: error.type,
    });
  },
  // An account added to an existing user; a new user's first account is part of its creation.
  accountLinked: (ctx, { user, account, isNewUser }) =>
    isNewUser
      ? undefined
      : recordSecurityEvent(ctx, {
          type: "accountLinked",
          userId: user.id,
          provider: account.provider,
          providerType: account.type,
        }),
  emailVerified: (ctx, { user, provider }) =>
    recordSecurityEvent(ctx, {
      type: "emailVerified",
      userId: user.id,
      provider: provider.id,
      providerType: provider.type,
    }),
};
