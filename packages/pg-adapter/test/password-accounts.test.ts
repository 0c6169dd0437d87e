/**
 * Password accounts on PGlite, past the conformance suite: `migrate` adds the `passwordHash`
 * column to an `accounts` table made by an older version, whose rows stay readable without it,
 * and its rows can then hold a hash.
 */
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { afterAll, describe, expect, test } from "vitest";
import { migrate, PostgresAdapter } from "../src/index.js";

const db = new PGlite();
afterAll(() => db.close());

/** The tables users and accounts as the adapter made them before password accounts. */
const OLD_TABLES = [
  `CREATE SCHEMA "old_accounts"`,
  `CREATE TABLE "old_accounts"."users" (
    "id" text PRIMARY KEY DEFAULT gen_random_uuid()::text, "name" text,
    "email" text NOT NULL DEFAULT '', "emailVerified" timestamptz, "image" text)`,
  `CREATE TABLE "old_accounts"."accounts" (
    "id" text PRIMARY KEY DEFAULT gen_random_uuid()::text,
    "userId" text NOT NULL REFERENCES "old_accounts"."users" ("id") ON DELETE CASCADE,
    "type" text NOT NULL, "provider" text NOT NULL, "providerAccountId" text NOT NULL,
    "access_token" text, "refresh_token" text, "id_token" text, "expires_at" bigint,
    "token_type" text, "scope" text, "session_state" jsonb, "authorization_details" jsonb,
    "error" text,
    CONSTRAINT "accounts_provider_account_key" UNIQUE ("provider", "providerAccountId"))`,
];

const columnsOf = async (table: string) =>
  (
    await db.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns
       WHERE table_schema = 'old_accounts' AND table_name = $1`,
      [table],
    )
  ).rows.map((r) => r.name);

describe("an accounts table from before password accounts", () => {
  test("migrate adds a nullable passwordHash column; old rows read back without it", async () => {
    for (const sql of OLD_TABLES) await db.query(sql);
    const userId = randomUUID();
    await db.query(
      `INSERT INTO "old_accounts"."users" ("id", "email") VALUES ($1, 'old@example.com')`,
      [userId],
    );
    await db.query(
      `INSERT INTO "old_accounts"."accounts" ("userId", "type", "provider", "providerAccountId", "access_token")
       VALUES ($1, 'oauth', 'github', '42', 'old-access-token')`,
      [userId],
    );
    expect(await columnsOf("accounts")).not.toContain("passwordHash");

    await migrate(db, { schema: "old_accounts" });
    await migrate(db, { schema: "old_accounts" }); // again: nothing to do, nothing fails
    expect(await columnsOf("accounts")).toContain("passwordHash");

    const adapter = PostgresAdapter(db, { schema: "old_accounts" });
    const old = await adapter.getAccount("42", "github");
    expect(old).toMatchObject({ userId, provider: "github", access_token: "old-access-token" });
    expect(old).not.toHaveProperty("passwordHash");

    const account = {
      userId,
      type: "password" as AdapterAccount["type"],
      provider: "password",
      providerAccountId: userId,
      passwordHash: "$scrypt$N=32768,r=8,p=1$c2FsdA$aGFzaA",
    };
    await adapter.linkAccount(account);
    expect(await adapter.getAccount(userId, "password")).toMatchObject(account);
    expect((await adapter.listAccountsByUserId(userId)).map((a) => a.passwordHash)).toEqual([
      undefined,
      account.passwordHash,
    ]);
  });
});
