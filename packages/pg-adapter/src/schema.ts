/**
 * The tables, as SQL, and the migration that creates them.
 *
 * Naming: tables are lowercase snake_case plurals (`users`, `verification_tokens`); columns
 * carry the adapter's field names exactly: camelCase for Gatehouse's own fields
 * (`"userId"`, `"emailVerified"`, `"providerAccountId"`) and snake_case for the OAuth token
 * fields (`access_token`, `expires_at`), as SPEC names them. So a row read with `SELECT *` has
 * the shape of the adapter object, and every identifier is written double-quoted.
 */
import { type PostgresOptions, type Queryable, quoteSchema } from "./client.js";

/** The DDL statements for `schema` (already validated and quoted), in dependency order. */
function statements(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."users" (
  "id"            text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "name"          text,
  "email"         text NOT NULL DEFAULT '',
  "emailVerified" timestamptz,
  "image"         text
)`,
    // "" means "no email": any number of users may have it, and it is never looked up.
    `CREATE UNIQUE INDEX IF NOT EXISTS "users_email_key" ON ${s}."users" ("email") WHERE "email" <> ''`,
    `CREATE TABLE IF NOT EXISTS ${s}."accounts" (
  "id"                    text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "userId"                text NOT NULL REFERENCES ${s}."users" ("id") ON DELETE CASCADE,
  "type"                  text NOT NULL,
  "provider"              text NOT NULL,
  "providerAccountId"     text NOT NULL,
  "access_token"          text,
  "refresh_token"         text,
  "id_token"              text,
  "expires_at"            bigint,
  "token_type"            text,
  "scope"                 text,
  "session_state"         jsonb,
  "authorization_details" jsonb,
  CONSTRAINT "accounts_provider_account_key" UNIQUE ("provider", "providerAccountId")
)`,
    `CREATE INDEX IF NOT EXISTS "accounts_userId_idx" ON ${s}."accounts" ("userId")`,
    // Provider tokens (docs/tokens.md): the marker left after a refused refresh.
    `ALTER TABLE ${s}."accounts" ADD COLUMN IF NOT EXISTS "error" text`,
    // Password accounts: the password provider's hash, on the account row it links.
    `ALTER TABLE ${s}."accounts" ADD COLUMN IF NOT EXISTS "passwordHash" text`,
    // Short cross-process locks around a token refresh, one row per held lock.
    `CREATE TABLE IF NOT EXISTS ${s}."account_locks" (
  "key"     text PRIMARY KEY,
  "holder"  text NOT NULL,
  "expires" timestamptz NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS ${s}."sessions" (
  "id"           text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "sessionToken" text NOT NULL,
  "userId"       text NOT NULL REFERENCES ${s}."users" ("id") ON DELETE CASCADE,
  "expires"      timestamptz NOT NULL,
  "createdAt"    timestamptz,
  "lastSeenAt"   timestamptz,
  "provider"     text,
  "providerType" text,
  "client"       text,
  "ip"           text,
  "providerSid"  text,
  "error"        text,
  "factors"      text,
  CONSTRAINT "sessions_sessionToken_key" UNIQUE ("sessionToken")
)`,
    // Session records (docs/sessions.md): tables created before them gain the columns, old rows null.
    `ALTER TABLE ${s}."sessions"
  ADD COLUMN IF NOT EXISTS "createdAt" timestamptz,
  ADD COLUMN IF NOT EXISTS "lastSeenAt" timestamptz,
  ADD COLUMN IF NOT EXISTS "provider" text,
  ADD COLUMN IF NOT EXISTS "providerType" text,
  ADD COLUMN IF NOT EXISTS "client" text,
  ADD COLUMN IF NOT EXISTS "ip" text,
  ADD COLUMN IF NOT EXISTS "providerSid" text,
  ADD COLUMN IF NOT EXISTS "error" text,
  ADD COLUMN IF NOT EXISTS "factors" text`,
    `CREATE INDEX IF NOT EXISTS "sessions_userId_idx" ON ${s}."sessions" ("userId")`,
    `CREATE TABLE IF NOT EXISTS ${s}."verification_tokens" (
  "identifier" text NOT NULL,
  "token"      text NOT NULL,
  "expires"    timestamptz NOT NULL,
  PRIMARY KEY ("identifier", "token")
)`,
    // Tries of a sign-in code, counted before each is checked; tables made before it gain it.
    `ALTER TABLE ${s}."verification_tokens" ADD COLUMN IF NOT EXISTS "tries" integer NOT NULL DEFAULT 0`,
    `CREATE TABLE IF NOT EXISTS ${s}."authenticators" (
  "credentialID"         text PRIMARY KEY,
  "userId"               text NOT NULL REFERENCES ${s}."users" ("id") ON DELETE CASCADE,
  "providerAccountId"    text NOT NULL,
  "credentialPublicKey"  text NOT NULL,
  "counter"              bigint NOT NULL DEFAULT 0,
  "credentialDeviceType" text NOT NULL,
  "credentialBackedUp"   boolean NOT NULL,
  "transports"           text
)`,
    `CREATE INDEX IF NOT EXISTS "authenticators_userId_idx" ON ${s}."authenticators" ("userId")`,
  ];
}

/**
 * The schema as SQL for the PostgreSQL schema `schema` (default `"public"`): idempotent
 * `CREATE … IF NOT EXISTS` statements, each ending with `;`, preceded by
 * `CREATE SCHEMA IF NOT EXISTS` unless the schema is `public`. Feed it to `psql` or to your
 * migration tool; {@link migrate} runs the same statements.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs"
 * writeFileSync("migrations/001_gatehouse.sql", createSchemaSql("auth"))
 * ```
 */
export function createSchemaSql(schema = "public"): string {
  const s = quoteSchema(schema);
  const head = [
    "-- Gatehouse tables for @gatehousejs/pg-adapter. PostgreSQL 13 or later (gen_random_uuid()).",
    "-- Column names are the adapter's field names, double-quoted (camelCase, OAuth fields snake_case).",
    "",
  ];
  const create = schema === "public" ? [] : [`CREATE SCHEMA IF NOT EXISTS ${s};`, ""];
  return [...head, ...create, statements(s).join(";\n\n") + ";", ""].join("\n");
}

/** The contents of `schema.sql`: the tables in the `public` schema. */
export const schemaSql: string = createSchemaSql();

/**
 * Creates the schema (unless it exists) and the Gatehouse tables and indexes in it, if they do
 * not exist yet. Safe to run on every start, and from several processes at once: the whole
 * migration is one statement, a transaction serialised by an advisory lock. Existing tables keep
 * their rows; a `sessions` table from before session records gains their columns (`createdAt`,
 * `lastSeenAt`, `provider`, `providerType`, `client`, `ip`), null in the rows it already has,
 * `accounts` gains `error` (provider token refresh) and `passwordHash` (password accounts), null
 * in its rows, and `verification_tokens` gains `tries` (sign-in code tries), 0 in its rows.
 *
 * @example
 * ```ts
 * import { Pool } from "pg"
 * import { migrate } from "@gatehousejs/pg-adapter"
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migrate(pool, { schema: "auth" })
 * ```
 */
export async function migrate(client: Queryable, options: PostgresOptions = {}): Promise<void> {
  const schema = options.schema ?? "public";
  const s = quoteSchema(schema);
  // One statement, so it runs unchanged through a pool (any connection) and PGlite (no
  // multi-statement queries with the extended protocol). `schema` matched a strict pattern, so
  // it is safe inside the string literal as well as quoted as an identifier.
  const body = statements(s)
    .map((sql) => `  ${sql.replaceAll("\n", "\n  ")};`)
    .join("\n");
  await client.query(`DO $gatehouse$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('@gatehousejs/pg-adapter migrate'));
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA IF NOT EXISTS ${s};
  END IF;
${body}
END
$gatehouse$`);
}
