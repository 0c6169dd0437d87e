/**
 * The Gatehouse tables for Drizzle on MySQL and MariaDB (mysql2): import them into your Drizzle
 * schema, or copy this file. Names and types are those of
 * `npx gatehouse generate --adapter drizzle --dialect mysql`. Create the tables with
 * `npx gatehouse migrate` (it also sets `utf8mb4_bin`, the exact comparison tokens and ids need);
 * timestamps are `datetime(3)` holding UTC.
 * @module
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  datetime,
  index,
  int,
  json,
  mysqlTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  varchar,
} from "drizzle-orm/mysql-core";

const at = (name: string) => datetime(name, { mode: "date", fsp: 3 });
const key = (name: string) => varchar(name, { length: 255 });

/**
 * Users. `email` is `''` for a user without one; `email_key` (written by the database, never by
 * the adapter) is `NULL` then, so its unique index lets any number of users have no email.
 */
export const users = mysqlTable(
  "users",
  {
    id: key("id").primaryKey(),
    name: text("name"),
    email: key("email").notNull().default(""),
    emailVerified: at("emailVerified"),
    image: text("image"),
    emailKey: key("email_key").generatedAlwaysAs(sql`(NULLIF(\`email\`, ''))`, { mode: "stored" }),
  },
  (t) => [uniqueIndex("users_email_key").on(t.emailKey)],
);

/** Provider accounts linked to users, with the provider's tokens and a password hash. */
export const accounts = mysqlTable(
  "accounts",
  {
    id: key("id").primaryKey(),
    userId: key("userId")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    provider: key("provider").notNull(),
    providerAccountId: key("providerAccountId").notNull(),
    access_token: text("access_token"),
    refresh_token: text("refresh_token"),
    id_token: text("id_token"),
    expires_at: bigint("expires_at", { mode: "number" }),
    token_type: text("token_type"),
    scope: text("scope"),
    session_state: json("session_state"),
    authorization_details: json("authorization_details"),
    error: text("error"),
    passwordHash: text("passwordHash"),
  },
  (t) => [
    unique("accounts_provider_account_key").on(t.provider, t.providerAccountId),
    index("accounts_userId_idx").on(t.userId),
  ],
);

/** Short cross-process locks around a provider token refresh. */
export const accountLocks = mysqlTable("account_locks", {
  key: key("key").primaryKey(),
  holder: text("holder").notNull(),
  expires: at("expires").notNull(),
});

/** Database sessions, with their session-record columns. */
export const sessions = mysqlTable(
  "sessions",
  {
    id: key("id").primaryKey(),
    sessionToken: key("sessionToken").notNull(),
    userId: key("userId")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expires: at("expires").notNull(),
    createdAt: at("createdAt"),
    lastSeenAt: at("lastSeenAt"),
    provider: text("provider"),
    providerType: text("providerType"),
    client: text("client"),
    ip: text("ip"),
    providerSid: text("providerSid"),
    error: text("error"),
    factors: text("factors"),
  },
  (t) => [
    unique("sessions_sessionToken_key").on(t.sessionToken),
    index("sessions_userId_idx").on(t.userId),
  ],
);

/** Email sign-in tokens (stored hashed) and the tries of a sign-in code. */
export const verificationTokens = mysqlTable(
  "verification_tokens",
  {
    identifier: key("identifier").notNull(),
    token: key("token").notNull(),
    expires: at("expires").notNull(),
    tries: int("tries").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

/** WebAuthn credentials (passkeys). */
export const authenticators = mysqlTable(
  "authenticators",
  {
    credentialID: key("credentialID").primaryKey(),
    userId: key("userId")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    providerAccountId: text("providerAccountId").notNull(),
    credentialPublicKey: text("credentialPublicKey").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    credentialDeviceType: text("credentialDeviceType").notNull(),
    credentialBackedUp: boolean("credentialBackedUp").notNull(),
    transports: text("transports"),
  },
  (t) => [index("authenticators_userId_idx").on(t.userId)],
);

/** Revoked JWT sessions, by id (the revocation store). */
export const revokedSessions = mysqlTable(
  "revoked_sessions",
  {
    userId: key("userId").notNull(),
    sessionId: key("sessionId").notNull(),
    expires: at("expires").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.sessionId] })],
);

/** "Every session of this user issued up to `at`" revocations (the revocation store). */
export const revocationEpochs = mysqlTable("revocation_epochs", {
  userId: key("userId").primaryKey(),
  at: bigint("at", { mode: "number" }).notNull(),
  except: text("except"),
  expires: at("expires").notNull(),
});

/** The records of live JWT sessions, for listing them (the revocation store). */
export const jwtSessions = mysqlTable(
  "jwt_sessions",
  {
    userId: key("userId").notNull(),
    sessionId: key("sessionId").notNull(),
    expires: at("expires").notNull(),
    createdAt: at("createdAt"),
    lastSeenAt: at("lastSeenAt"),
    provider: text("provider"),
    providerType: text("providerType"),
    client: text("client"),
    ip: text("ip"),
    providerSid: text("providerSid"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.sessionId] })],
);

/** The security activity log. */
export const securityEvents = mysqlTable(
  "security_events",
  {
    id: key("id").primaryKey(),
    userId: key("userId").notNull(),
    type: text("type").notNull(),
    at: at("at").notNull(),
    provider: text("provider"),
    providerType: text("providerType"),
    newClient: boolean("newClient"),
    client: text("client"),
    ip: text("ip"),
    sessionId: text("sessionId"),
    reason: text("reason"),
  },
  (t) => [
    index("security_events_userId_at_idx").on(t.userId, t.at),
    index("security_events_at_idx").on(t.at),
  ],
);

/** Rate-limit counters, one row per key. */
export const rateLimits = mysqlTable("rate_limits", {
  key: key("key").primaryKey(),
  count: bigint("count", { mode: "number" }).notNull(),
  resetAt: at("resetAt").notNull(),
});
