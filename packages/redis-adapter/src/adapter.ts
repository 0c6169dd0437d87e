import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
} from "@gatehousejs/core/adapters";
import { commandsOf, type RedisClientLike, type Script, text, texts } from "./client.js";
import { keyLayout } from "./keys.js";
import {
  COMPARE_AND_SET,
  CREATE_OWNED,
  CREATE_SESSION,
  CREATE_USER,
  DELETE_AUTHENTICATOR,
  DELETE_SESSION,
  DELETE_SESSIONS,
  DELETE_USER,
  GET_SESSION_AND_USER,
  GET_USER_BY_ACCOUNT,
  GET_USER_BY_EMAIL,
  LIST_OWNED,
  LIST_SESSIONS,
  RELEASE_LOCK,
  UNLINK_ACCOUNT,
  UPDATE_SESSION,
  UPDATE_USER,
} from "./scripts.js";
import { decode, decodeOrNull, encode, expiryOf } from "./serialize.js";
import {
  type RedisVerificationTokenMethods,
  verificationTokenMethods,
} from "./verification-tokens.js";

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /**
   * Put in front of every key, so that several apps (or tests) can share one database.
   * Default `"gatehouse:"`. On Redis Cluster use a hash tag, such as `"{gatehouse}:"`.
   */
  prefix?: string;
}

/** What {@link RedisAdapter} returns: every method of the adapter contract, asynchronous. */
export interface RedisAdapter
  extends Omit<CompleteAdapter, "createVerificationToken">,
    RedisVerificationTokenMethods {
  /** Rejects when the id, or the (non-empty) email, is already taken. */
  createUser(user: AdapterUser): Promise<AdapterUser>;
  /** `null` for the empty email: it means "no email" and is never indexed. */
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  /** Rejects when the user does not exist, or when another user has the new email. */
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>;
  /** Also deletes the user's sessions, accounts, authenticators and email index entry. */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Rejects when the user does not exist, or the provider account is already linked. */
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  /** Resolves to `undefined` when no such account exists (the contract has no `null` here). */
  unlinkAccount(key: AccountKey): Promise<AdapterAccount | undefined>;
  /** One round trip; sorted by provider, then account id; `[]` for an unknown user. */
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>;
  /**
   * Merges the fields given into the stored account (a `null` removes the field; the key fields,
   * `id`, `userId` and `type` are never changed), written with a compare-and-set script. With
   * `ifRefreshToken` it writes only if the stored `refresh_token` still equals it (`null`: none
   * stored), and returns `null` when it did not; `null` also for an unknown account.
   */
  updateAccount(
    account: Partial<AdapterAccount> & AccountKey,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /**
   * `SET lock NX PX ttlMs` with a random holder token; the release deletes the key only while it
   * still holds that token, so a late release never frees another holder's lock.
   */
  lockAccount(key: AccountKey, ttlMs: number): Promise<(() => Promise<void>) | null>;
  /** The session key expires at `expires`. Rejects when the user does not exist. */
  createSession(session: AdapterSession): Promise<AdapterSession>;
  /** One round trip. `null` when the session is unknown or expired, or its user is gone. */
  getSessionAndUser(
    sessionToken: string,
  ): Promise<{ session: AdapterSession; user: AdapterUser } | null>;
  /** Moves the session key's expiry with `expires`. `null` for an unknown session. */
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Promise<AdapterSession | null>;
  /**
   * One round trip over the user's sessions index (expired entries are dropped from it on the
   * way); oldest first.
   */
  listSessionsByUserId(userId: string): Promise<AdapterSession[]>;
  /** One atomic script; returns how many sessions it deleted. */
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /** Rejects when the user does not exist, or the credential id is taken. */
  createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator>;
  /** Sorted by `credentialID`; `[]` for an unknown user. */
  listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]>;
  /** Rejects when the authenticator does not exist. */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
  ): Promise<AdapterAuthenticator>;
  /**
   * One atomic script: deletes the authenticator and its entry in the user's set of
   * authenticators, and returns it; `null` for an unknown credential id. The passkey's `webauthn`
   * account stays; remove it with `unlinkAccount`.
   */
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
}

function fail(message: string): never {
  // Messages name the kind of row, never a key, an email or a token: they end up in logs.
  throw new Error(`RedisAdapter: ${message}`);
}

// An update leaves a field alone when it is `undefined`, as ORMs do.
const defined = <T extends object>(patch: T): T =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as T;

/** Code-unit order, as `ORDER BY … COLLATE "C"` would sort. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Oldest first; an unknown time (a session from before session records) last. */
const byTime = (a: Date | null | undefined, b: Date | null | undefined) =>
  (a?.getTime() ?? Number.POSITIVE_INFINITY) - (b?.getTime() ?? Number.POSITIVE_INFINITY) || 0;

// The empty email means "no email" (SPEC: email defaults to ""): never indexed, never found.
const indexable = (email: unknown): email is string => typeof email === "string" && email !== "";

function expectOk(status: string | null, outcomes: Record<string, string>): void {
  if (status === "ok") return;
  const message = status === null ? undefined : outcomes[status];
  fail(message ?? `unexpected script result ${JSON.stringify(status)}`);
}

// Read-merge-write updates retry when another client changed the row in between, after a short
// random pause that grows with each conflict, so that many writers of one row (20 repeat
// sign-ins of one account, say) take turns instead of colliding again at once.
const ATTEMPTS = 40;
const pause = (attempt: number) =>
  new Promise((resolve) =>
    setTimeout(resolve, Math.random() * Math.min(2 ** Math.min(attempt, 5), 25)),
  );
/** What `updateAccount` never changes: the account's identity and owner. */
const FIXED_ACCOUNT_FIELDS: ReadonlySet<string> = new Set([
  "id",
  "userId",
  "type",
  "provider",
  "providerAccountId",
]);

const CONFLICT = Symbol("conflict");
async function optimistic<T>(what: string, attempt: () => Promise<T | typeof CONFLICT>) {
  for (let i = 0; i < ATTEMPTS; i++) {
    if (i > 0) await pause(i);
    const result = await attempt();
    if (result !== CONFLICT) return result;
  }
  return fail(`the ${what} kept changing during the update; gave up after ${ATTEMPTS} attempts`);
}

/**
 * Creates an adapter that keeps users, accounts, sessions, verification tokens and WebAuthn
 * authenticators in Redis (6.2 or later), through an ioredis client or a connected node-redis
 * client. Sessions and verification tokens expire with Redis TTLs at their `expires`. Writes that
 * touch several keys (a user and its email index, an account and its user's set, ...) run as Lua
 * scripts, so each is atomic: a taken email, provider account, session token or credential id
 * makes the call reject and writes nothing. The key layout is in the README.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "@gatehousejs/redis-adapter"
 *
 * const redis = new Redis(process.env.REDIS_URL)
 * const response = await Auth(request, { adapter: RedisAdapter(redis), providers, ... })
 * ```
 */
export function RedisAdapter(
  client: RedisClientLike,
  options: RedisAdapterOptions = {},
): RedisAdapter {
  const prefix = options.prefix ?? "gatehouse:";
  if (typeof prefix !== "string") throw new TypeError("RedisAdapter: `prefix` must be a string");
  const redis = commandsOf(client);
  const key = keyLayout(prefix);
  const run = (s: Script, keys: string[], ...args: (string | number)[]) =>
    redis.run(s, keys, [prefix, ...args]);
  const get = async (k: string) => text(await redis.send(["GET", k]));

  return {
    async createUser(user) {
      if (typeof user.id !== "string" || user.id === "") fail("createUser needs a string `id`");
      const json = encode(user);
      const email = indexable(user.email) ? user.email : "";
      const keys = [key.user(user.id), key.userByEmail(email)];
      const status = text(await run(CREATE_USER, keys, json, user.id, email ? "1" : "0"));
      expectOk(status, {
        "id-taken": "a user with this id already exists",
        "email-taken": "a user with this email already exists",
      });
      return decode(json);
    },
    async getUser(id) {
      return decodeOrNull(await get(key.user(id)));
    },
    async getUserByEmail(email) {
      if (!indexable(email)) return null;
      return decodeOrNull(text(await run(GET_USER_BY_EMAIL, [key.userByEmail(email)])));
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const reply = await run(GET_USER_BY_ACCOUNT, [key.account(provider, providerAccountId)]);
      return decodeOrNull(text(reply));
    },
    async updateUser(patch) {
      return optimistic("user", async () => {
        const before = await get(key.user(patch.id));
        if (before === null) fail("no user with this id");
        const current = decode<AdapterUser>(before);
        const json = encode({ ...current, ...defined(patch) });
        const updated = decode<AdapterUser>(json);
        const [from, to] = [current.email, updated.email];
        const keys = [
          key.user(patch.id),
          key.userByEmail(indexable(from) ? from : ""),
          key.userByEmail(indexable(to) ? to : ""),
        ];
        const flags = [indexable(from) ? "1" : "0", indexable(to) ? "1" : "0"];
        const status = text(await run(UPDATE_USER, keys, before, json, patch.id, ...flags));
        if (status === "conflict") return CONFLICT;
        expectOk(status, { "email-taken": "another user already has this email" });
        return updated;
      });
    },
    async deleteUser(userId) {
      const keys = [
        key.user(userId),
        key.userAccounts(userId),
        key.userSessions(userId),
        key.userAuthenticators(userId),
      ];
      return decodeOrNull(text(await run(DELETE_USER, keys, userId)));
    },

    async linkAccount(account) {
      const json = encode(account);
      const keys = [
        key.account(account.provider, account.providerAccountId),
        key.user(account.userId),
        key.userAccounts(account.userId),
      ];
      expectOk(text(await run(CREATE_OWNED, keys, json)), {
        "no-user": "the account refers to a user that does not exist",
        taken: "this provider account is already linked (unique constraint)",
      });
      return decode(json);
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const reply = await run(UNLINK_ACCOUNT, [key.account(provider, providerAccountId)]);
      return decodeOrNull<AdapterAccount>(text(reply)) ?? undefined;
    },
    async getAccount(providerAccountId, provider) {
      return decodeOrNull(await get(key.account(provider, providerAccountId)));
    },
    async updateAccount(patch, options = {}) {
      const k = key.account(patch.provider, patch.providerAccountId);
      return optimistic("account", async () => {
        const before = await get(k);
        if (before === null) return null;
        const current = decode<AdapterAccount>(before);
        if (
          options.ifRefreshToken !== undefined &&
          (current.refresh_token ?? null) !== options.ifRefreshToken
        ) {
          return null;
        }
        const merged: Record<string, unknown> = { ...current };
        for (const [field, value] of Object.entries(patch)) {
          if (value === undefined || FIXED_ACCOUNT_FIELDS.has(field)) continue;
          if (value === null) delete merged[field];
          else merged[field] = value;
        }
        const json = encode(merged);
        const status = text(await run(COMPARE_AND_SET, [k], before, json));
        if (status === "conflict") return CONFLICT;
        expectOk(status, {});
        return decode<AdapterAccount>(json);
      });
    },
    async lockAccount({ provider, providerAccountId }, ttlMs) {
      if (!(Number.isFinite(ttlMs) && ttlMs > 0)) fail("lockAccount needs a positive ttlMs");
      const k = key.accountLock(provider, providerAccountId);
      const holder = crypto.randomUUID();
      const reply = await redis.send(["SET", k, holder, "NX", "PX", Math.ceil(ttlMs)]);
      if (text(reply) === null) return null;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await run(RELEASE_LOCK, [k], holder);
      };
    },
    async listAccountsByUserId(userId) {
      const rows = texts(await run(LIST_OWNED, [key.userAccounts(userId)], userId));
      return rows
        .map((row) => decode<AdapterAccount>(row))
        .sort(
          (a, b) =>
            byText(a.provider, b.provider) || byText(a.providerAccountId, b.providerAccountId),
        );
    },

    async createSession(session) {
      const expires = expiryOf(session.expires, "a session");
      const json = encode(session);
      const { sessionToken, userId } = session;
      const keys = [key.session(sessionToken), key.user(userId), key.userSessions(userId)];
      expectOk(text(await run(CREATE_SESSION, keys, json, expires)), {
        "no-user": "the session refers to a user that does not exist",
        taken: "a session with this token already exists",
      });
      return decode(json);
    },
    async getSessionAndUser(sessionToken) {
      const reply = await run(GET_SESSION_AND_USER, [key.session(sessionToken)]);
      if (reply === null || reply === undefined || reply === false) return null;
      const [sessionJson, userJson] = texts(reply);
      if (sessionJson === undefined || userJson === undefined) fail("malformed script reply");
      const session = decode<AdapterSession>(sessionJson);
      // Redis drops the key at `expires` by its own clock; this covers a clock that lags ours.
      if (!(session.expires instanceof Date) || session.expires.getTime() <= Date.now()) {
        return null;
      }
      return { session, user: decode<AdapterUser>(userJson) };
    },
    async updateSession(patch) {
      return optimistic("session", async () => {
        const before = await get(key.session(patch.sessionToken));
        if (before === null) return null;
        const current = decode<AdapterSession>(before);
        const merged: AdapterSession = { ...current, ...defined(patch) };
        // `error: null` clears the refresh mark and reads back absent, as in the SQL adapters.
        if (merged.error === null) delete merged.error;
        const json = encode(merged);
        const updated = decode<AdapterSession>(json);
        const expires = expiryOf(updated.expires, "a session");
        const keys = [
          key.session(patch.sessionToken),
          key.userSessions(current.userId),
          key.userSessions(updated.userId),
          key.user(updated.userId),
        ];
        const status = text(await run(UPDATE_SESSION, keys, before, json, expires));
        if (status === "conflict") return CONFLICT;
        expectOk(status, { "no-user": "the session refers to a user that does not exist" });
        return updated;
      });
    },
    async deleteSession(sessionToken) {
      return decodeOrNull(text(await run(DELETE_SESSION, [key.session(sessionToken)])));
    },
    async listSessionsByUserId(userId) {
      const rows = texts(await run(LIST_SESSIONS, [key.userSessions(userId)], userId));
      return rows
        .map((row) => decode<AdapterSession>(row))
        .sort((a, b) => byTime(a.createdAt, b.createdAt) || byText(a.sessionToken, b.sessionToken));
    },
    async deleteSessionsByUserId(userId, options = {}) {
      const keep = options.except === undefined ? "" : key.session(options.except);
      return Number(await run(DELETE_SESSIONS, [key.userSessions(userId)], userId, keep));
    },

    ...verificationTokenMethods(redis, key),

    async createAuthenticator(authenticator) {
      const json = encode(authenticator);
      const { credentialID, userId } = authenticator;
      const keys = [
        key.authenticator(credentialID),
        key.user(userId),
        key.userAuthenticators(userId),
      ];
      expectOk(text(await run(CREATE_OWNED, keys, json)), {
        "no-user": "the authenticator refers to a user that does not exist",
        taken: "an authenticator with this credential id already exists",
      });
      return decode(json);
    },
    async getAuthenticator(credentialID) {
      return decodeOrNull(await get(key.authenticator(credentialID)));
    },
    async listAuthenticatorsByUserId(userId) {
      const rows = texts(await run(LIST_OWNED, [key.userAuthenticators(userId)], userId));
      return rows
        .map((row) => decode<AdapterAuthenticator>(row))
        .sort((a, b) => byText(a.credentialID, b.credentialID));
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      return optimistic("authenticator", async () => {
        const k = key.authenticator(credentialID);
        const before = await get(k);
        if (before === null) fail("no authenticator with this credential id");
        const json = encode({ ...decode<AdapterAuthenticator>(before), counter: newCounter });
        const status = text(await run(COMPARE_AND_SET, [k], before, json));
        if (status === "conflict") return CONFLICT;
        expectOk(status, {});
        return decode<AdapterAuthenticator>(json);
      });
    },
    async deleteAuthenticator(credentialID) {
      const reply = await run(DELETE_AUTHENTICATOR, [key.authenticator(credentialID)]);
      return decodeOrNull(text(reply));
    },
  };
}
