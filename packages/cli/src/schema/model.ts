/**
 * Every Gatehouse table, once, without a dialect. The names are those of
 * `@gatehousejs/pg-adapter`: lowercase snake_case plural tables, columns named after the adapter
 * fields (camelCase for Gatehouse's own, snake_case for the OAuth token fields). The renderers
 * (`sql.ts`, `drizzle.ts`, `prisma.ts`) turn this into each dialect's and each ORM's text.
 */
import type { SchemaFeatures } from "./features.js";

/**
 * A column's type, without a dialect:
 * - `string`: text (MySQL: `varchar(255)` when keyed or indexed, `text` otherwise);
 * - `timestamp`: a moment (PostgreSQL `timestamptz`, MySQL `datetime(3)` in UTC, SQLite epoch ms);
 * - `bigint`, `integer`, `boolean`, `json`.
 */
export type ColumnType = "string" | "timestamp" | "bigint" | "integer" | "boolean" | "json";

/** One column. */
export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** Whether NULL is allowed. */
  readonly nullable: boolean;
  /** A constant default (`''`, `0`). */
  readonly default?: string | number;
  /** A random text id by default (PostgreSQL `gen_random_uuid()::text`; elsewhere the adapter makes it). */
  readonly generatedId?: true;
  /** `ON DELETE CASCADE` reference to `users.id`. */
  readonly referencesUser?: true;
  /**
   * Added after its table first shipped: PostgreSQL's DDL also adds it to an existing table
   * (`ADD COLUMN IF NOT EXISTS`), as pg-adapter's `migrate()` does. Always nullable or defaulted.
   */
  readonly addedLater?: true;
  /** The feature that needs it, when the table alone does not say. */
  readonly feature?: keyof SchemaFeatures;
}

/** An index (or a unique constraint, `constraint: true`). */
export interface Index {
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly desc?: true }[];
  readonly unique?: true;
  /** A table constraint on PostgreSQL and MySQL (`UNIQUE (…)`), a unique index on SQLite. */
  readonly constraint?: true;
  /** Unique among real addresses only: `users.email`, where `''` means "no email". */
  readonly emailPartial?: true;
}

/** One table. */
export interface Table {
  readonly name: string;
  /** The name of its Drizzle table export (`verificationTokens`). */
  readonly exportName: string;
  /** The name of its Prisma model (`VerificationToken`). */
  readonly model: string;
  /** The feature that needs the table. */
  readonly feature: keyof SchemaFeatures;
  readonly columns: readonly Column[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly Index[];
  /** What the table is for, one line (comments in generated files). */
  readonly description: string;
}

const str = (name: string, nullable = true): Column => ({ name, type: "string", nullable });
const time = (name: string, nullable = true): Column => ({ name, type: "timestamp", nullable });
const userId: Column = { name: "userId", type: "string", nullable: false, referencesUser: true };
const cols = (...names: string[]) => names.map((name) => ({ name }));

/** The columns a session record adds to `sessions` and `jwt_sessions` (docs/sessions.md). */
const recordColumns = (): Column[] => [
  time("createdAt"),
  time("lastSeenAt"),
  str("provider"),
  str("providerType"),
  str("client"),
  str("ip"),
  str("providerSid"),
];

/** Every table, in dependency order (`users` before the tables that reference it). */
export const TABLES: readonly Table[] = [
  {
    name: "users",
    exportName: "users",
    model: "User",
    feature: "adapter",
    description: "People who sign in.",
    columns: [
      { name: "id", type: "string", nullable: false, generatedId: true },
      str("name"),
      // '' means "no email": any number of users may have it, and it is never looked up.
      { name: "email", type: "string", nullable: false, default: "" },
      time("emailVerified"),
      str("image"),
    ],
    primaryKey: ["id"],
    indexes: [
      { name: "users_email_key", columns: cols("email"), unique: true, emailPartial: true },
    ],
  },
  {
    name: "accounts",
    exportName: "accounts",
    model: "Account",
    feature: "adapter",
    description: "The ways a user signs in (OAuth accounts, email, passkeys, passwords).",
    columns: [
      { name: "id", type: "string", nullable: false, generatedId: true },
      userId,
      str("type", false),
      str("provider", false),
      str("providerAccountId", false),
      str("access_token"),
      str("refresh_token"),
      str("id_token"),
      { name: "expires_at", type: "bigint", nullable: true },
      str("token_type"),
      str("scope"),
      { name: "session_state", type: "json", nullable: true },
      { name: "authorization_details", type: "json", nullable: true },
      // The marker left after a refused token refresh (docs/tokens.md).
      { ...str("error"), addedLater: true, feature: "tokenRefresh" },
      // The password provider's hash, on the account row it links.
      { ...str("passwordHash"), addedLater: true, feature: "password" },
    ],
    primaryKey: ["id"],
    indexes: [
      {
        name: "accounts_provider_account_key",
        columns: cols("provider", "providerAccountId"),
        unique: true,
        constraint: true,
      },
      { name: "accounts_userId_idx", columns: cols("userId") },
    ],
  },
  {
    name: "account_locks",
    exportName: "accountLocks",
    model: "AccountLock",
    feature: "tokenRefresh",
    description: "Short cross-process locks around a provider token refresh.",
    columns: [str("key", false), str("holder", false), time("expires", false)],
    primaryKey: ["key"],
    indexes: [],
  },
  {
    name: "sessions",
    exportName: "sessions",
    model: "Session",
    feature: "databaseSessions",
    description: "Database sessions and their records.",
    columns: [
      { name: "id", type: "string", nullable: false, generatedId: true },
      str("sessionToken", false),
      userId,
      time("expires", false),
      ...recordColumns().map((c): Column => ({ ...c, addedLater: true })),
      { ...str("error"), addedLater: true },
      { ...str("factors"), addedLater: true },
    ],
    primaryKey: ["id"],
    indexes: [
      {
        name: "sessions_sessionToken_key",
        columns: cols("sessionToken"),
        unique: true,
        constraint: true,
      },
      { name: "sessions_userId_idx", columns: cols("userId") },
    ],
  },
  {
    name: "verification_tokens",
    exportName: "verificationTokens",
    model: "VerificationToken",
    feature: "email",
    description: "Magic link and sign-in code tokens (hashed).",
    columns: [
      str("identifier", false),
      str("token", false),
      time("expires", false),
      // Tries of a sign-in code, counted before each is checked.
      { name: "tries", type: "integer", nullable: false, default: 0, addedLater: true },
    ],
    primaryKey: ["identifier", "token"],
    indexes: [],
  },
  {
    name: "authenticators",
    exportName: "authenticators",
    model: "Authenticator",
    feature: "webauthn",
    description: "Passkeys (WebAuthn credentials).",
    columns: [
      str("credentialID", false),
      userId,
      str("providerAccountId", false),
      str("credentialPublicKey", false),
      { name: "counter", type: "bigint", nullable: false, default: 0 },
      str("credentialDeviceType", false),
      { name: "credentialBackedUp", type: "boolean", nullable: false },
      str("transports"),
    ],
    primaryKey: ["credentialID"],
    indexes: [{ name: "authenticators_userId_idx", columns: cols("userId") }],
  },
  {
    name: "revoked_sessions",
    exportName: "revokedSessions",
    model: "RevokedSession",
    feature: "revocation",
    description: "Revoked JWT sessions, until they expire.",
    columns: [str("userId", false), str("sessionId", false), time("expires", false)],
    primaryKey: ["userId", "sessionId"],
    indexes: [],
  },
  {
    name: "revocation_epochs",
    exportName: "revocationEpochs",
    model: "RevocationEpoch",
    feature: "revocation",
    description: "Per user: every JWT session issued before `at` is revoked (but `except`).",
    columns: [
      str("userId", false),
      { name: "at", type: "bigint", nullable: false },
      str("except"),
      time("expires", false),
    ],
    primaryKey: ["userId"],
    indexes: [],
  },
  {
    name: "jwt_sessions",
    exportName: "jwtSessions",
    model: "JwtSession",
    feature: "revocation",
    description: "Records of JWT sessions, for listing and revoking them.",
    columns: [
      str("userId", false),
      str("sessionId", false),
      time("expires", false),
      ...recordColumns().map(
        (c): Column => (c.name === "providerSid" ? { ...c, addedLater: true } : c),
      ),
    ],
    primaryKey: ["userId", "sessionId"],
    indexes: [],
  },
  {
    name: "security_events",
    exportName: "securityEvents",
    model: "SecurityEvent",
    feature: "securityLog",
    description: "The security log: sign-ins, new clients, revocations.",
    columns: [
      str("id", false),
      str("userId", false),
      str("type", false),
      time("at", false),
      str("provider"),
      str("providerType"),
      { name: "newClient", type: "boolean", nullable: true },
      str("client"),
      str("ip"),
      str("sessionId"),
      str("reason"),
    ],
    primaryKey: ["id"],
    indexes: [
      {
        name: "security_events_userId_at_idx",
        columns: [{ name: "userId" }, { name: "at", desc: true }],
      },
      { name: "security_events_at_idx", columns: cols("at") },
    ],
  },
  {
    name: "rate_limits",
    exportName: "rateLimits",
    model: "RateLimit",
    feature: "rateLimit",
    description: "Rate limit counters, one row per key and window.",
    columns: [
      str("key", false),
      { name: "count", type: "bigint", nullable: false },
      time("resetAt", false),
    ],
    primaryKey: ["key"],
    indexes: [],
  },
];

/** A table with only the columns `features` needs. */
function trimmed(table: Table, features: SchemaFeatures): Table {
  const columns = table.columns.filter((c) => !c.feature || features[c.feature]);
  return columns.length === table.columns.length ? table : { ...table, columns };
}

/**
 * The tables (and columns) that `features` needs, in dependency order.
 *
 * @example
 * ```ts
 * import { resolveFeatures, tablesFor } from "@gatehousejs/cli/schema"
 *
 * const names = tablesFor(resolveFeatures({ databaseSessions: true })).map((t) => t.name)
 * // ["users", "accounts", "sessions"]
 * ```
 */
export function tablesFor(features: SchemaFeatures): Table[] {
  return TABLES.filter((t) => features[t.feature]).map((t) => trimmed(t, features));
}

/**
 * Whether a string column is a key in MySQL's sense (primary key, unique, indexed or a reference):
 * those are `varchar(255)`, the others `text`.
 */
export function isKeyed(table: Table, column: Column): boolean {
  if (column.type !== "string") return false;
  if (column.referencesUser || table.primaryKey.includes(column.name)) return true;
  return table.indexes.some((i) => i.columns.some((c) => c.name === column.name));
}
