/**
 * The Gatehouse tables for Drizzle on PostgreSQL (node-postgres, PGlite, postgres.js): import
 * them into your Drizzle schema, or copy this file. Names and types are those of
 * `@gatehousejs/pg-adapter` and of `npx gatehouse generate --adapter drizzle --dialect postgresql`,
 * so the three share one database layout.
 * @module
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const uuid = () => sql`gen_random_uuid()::text`;

/** Users. `email` is `''` for a user without one; real addresses are unique. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey().default(uuid()),
    name: text("name"),
    email: text("email").notNull().default(""),
    emailVerified: at("emailVerified"),
    image: text("image"),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email).where(sql`${t.email} <> ''`)],
);

/** Provider accounts linked to users, with the provider's tokens and a password hash. */
export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey().default(uuid()),
    userId: text("userId")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    provider: text("provider").notNull(),
    providerAccountId: text("providerAccountId").notNull(),
    access_token: text("access_token"),
    refresh_token: text("refresh_token"),
    id_token: text("id_token"),
    expires_at: bigint("expires_at", { mode: "number" }),
    token_type: text("token_type"),
    scope: text("scope"),
    session_state: jsonb("session_state"),
    authorization_details: jsonb("authorization_details"),
    error: text("error"),
    passwordHash: text("passwordHash"),
  },
  (t) => [
    unique("accounts_provider_account_key").on(t.provider, t.providerAccountId),
    index("accounts_userId_idx").on(t.userId),
  ],
);

/** Short cross-process locks around a provider token refresh. */
export const accountLocks = pgTable("account_locks", {
  key: text("key").primaryKey(),
  holder: text("holder").notNull(),
  expires: at("expires").notNull(),
});

/** Database sessions, with their session-record columns. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey().default(uuid()),
    sessionToken: text("sessionToken").notNull(),
    userId: text("userId")
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
export const verificationTokens = pgTable(
  "verification_tokens",
  {
    identifier: text("identifier").notNull(),
    token: text("token").notNull(),
    expires: at("expires").notNull(),
    tries: integer("tries").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);

/** WebAuthn credentials (passkeys). */
export const authenticators = pgTable(
  "authenticators",
  {
    credentialID: text("credentialID").primaryKey(),
    userId: text("userId")
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
export const revokedSessions = pgTable(
  "revoked_sessions",
  {
    userId: text("userId").notNull(),
    sessionId: text("sessionId").notNull(),
    expires: at("expires").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.sessionId] })],
);

/** "Every session of this user issued up to `at`" revocations (the revocation store). */
export const revocationEpochs = pgTable("revocation_epochs", {
  userId: text("userId").primaryKey(),
  at: bigint("at", { mode: "number" }).notNull(),
  except: text("except"),
  expires: at("expires").notNull(),
});

/** The records of live JWT sessions, for listing them (the revocation store). */
export const jwtSessions = pgTable(
  "jwt_sessions",
  {
    userId: text("userId").notNull(),
    sessionId: text("sessionId").notNull(),
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
export const securityEvents = pgTable(
  "security_events",
  {
    id: text("id").primaryKey(),
    userId: text("userId").notNull(),
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
    index("security_events_userId_at_idx").on(t.userId, t.at.desc()),
    index("security_events_at_idx").on(t.at),
  ],
);

/** Rate-limit counters, one row per key. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  count: bigint("count", { mode: "number" }).notNull(),
  resetAt: at("resetAt").notNull(),
});
