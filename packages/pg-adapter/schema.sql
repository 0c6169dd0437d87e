-- Gatehouse tables for @gatehousejs/pg-adapter. PostgreSQL 13 or later (gen_random_uuid()).
-- Column names are the adapter's field names, double-quoted (camelCase, OAuth fields snake_case).

CREATE TABLE IF NOT EXISTS "public"."users" (
  "id"            text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "name"          text,
  "email"         text NOT NULL DEFAULT '',
  "emailVerified" timestamptz,
  "image"         text
);

CREATE UNIQUE INDEX IF NOT EXISTS "users_email_key" ON "public"."users" ("email") WHERE "email" <> '';

CREATE TABLE IF NOT EXISTS "public"."accounts" (
  "id"                    text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "userId"                text NOT NULL REFERENCES "public"."users" ("id") ON DELETE CASCADE,
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
);

CREATE INDEX IF NOT EXISTS "accounts_userId_idx" ON "public"."accounts" ("userId");

ALTER TABLE "public"."accounts" ADD COLUMN IF NOT EXISTS "error" text;

ALTER TABLE "public"."accounts" ADD COLUMN IF NOT EXISTS "passwordHash" text;

CREATE TABLE IF NOT EXISTS "public"."account_locks" (
  "key"     text PRIMARY KEY,
  "holder"  text NOT NULL,
  "expires" timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS "public"."sessions" (
  "id"           text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  "sessionToken" text NOT NULL,
  "userId"       text NOT NULL REFERENCES "public"."users" ("id") ON DELETE CASCADE,
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
);

ALTER TABLE "public"."sessions"
  ADD COLUMN IF NOT EXISTS "createdAt" timestamptz,
  ADD COLUMN IF NOT EXISTS "lastSeenAt" timestamptz,
  ADD COLUMN IF NOT EXISTS "provider" text,
  ADD COLUMN IF NOT EXISTS "providerType" text,
  ADD COLUMN IF NOT EXISTS "client" text,
  ADD COLUMN IF NOT EXISTS "ip" text,
  ADD COLUMN IF NOT EXISTS "providerSid" text,
  ADD COLUMN IF NOT EXISTS "error" text,
  ADD COLUMN IF NOT EXISTS "factors" text;

CREATE INDEX IF NOT EXISTS "sessions_userId_idx" ON "public"."sessions" ("userId");

CREATE TABLE IF NOT EXISTS "public"."verification_tokens" (
  "identifier" text NOT NULL,
  "token"      text NOT NULL,
  "expires"    timestamptz NOT NULL,
  PRIMARY KEY ("identifier", "token")
);

ALTER TABLE "public"."verification_tokens" ADD COLUMN IF NOT EXISTS "tries" integer NOT NULL DEFAULT 0;

CREATE TABLE IF NOT EXISTS "public"."authenticators" (
  "credentialID"         text PRIMARY KEY,
  "userId"               text NOT NULL REFERENCES "public"."users" ("id") ON DELETE CASCADE,
  "providerAccountId"    text NOT NULL,
  "credentialPublicKey"  text NOT NULL,
  "counter"              bigint NOT NULL DEFAULT 0,
  "credentialDeviceType" text NOT NULL,
  "credentialBackedUp"   boolean NOT NULL,
  "transports"           text
);

CREATE INDEX IF NOT EXISTS "authenticators_userId_idx" ON "public"."authenticators" ("userId");
