/**
 * Password accounts on SQLite, past the conformance suite: `orm.schema.updateSchema()` adds the
 * `passwordHash` column to an `accounts` table made before it, whose rows stay readable without
 * it, and its rows can then hold a hash.
 */
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { MikroORM } from "@mikro-orm/sqlite";
import { afterAll, expect, test } from "vitest";
import { gatehouseEntities, MikroOrmAdapter } from "../src/index.js";

const orm = await MikroORM.init({ dbName: ":memory:", entities: [...gatehouseEntities.list] });
afterAll(() => orm.close(true));

test("updateSchema adds the passwordHash column; an old account reads back without it", async () => {
  await orm.schema.createSchema();
  const sql = (text: string) => orm.em.getConnection().execute(text);
  // The table as the adapter's entities made it before password accounts.
  await sql(`drop table "accounts"`);
  await sql(`create table "accounts" (
    "id" text not null primary key,
    "userId" text not null references "users" ("id") on delete cascade on update cascade,
    "type" text not null, "provider" text not null, "providerAccountId" text not null,
    "refresh_token" text null, "access_token" text null, "expires_at" bigint null,
    "token_type" text null, "scope" text null, "id_token" text null,
    "session_state" json null, "authorization_details" json null, "error" text null)`);
  await sql(`create index "accounts_userId_index" on "accounts" ("userId")`);
  await sql(
    `create unique index "accounts_provider_account_key" on "accounts" ("provider", "providerAccountId")`,
  );
  const userId = crypto.randomUUID();
  await sql(`insert into "users" ("id", "email") values ('${userId}', 'old@example.com')`);
  await sql(`insert into "accounts" ("id", "userId", "type", "provider", "providerAccountId", "access_token")
    values ('old-row', '${userId}', 'oauth', 'github', '42', 'old-access-token')`);

  const adapter = MikroOrmAdapter(orm);
  const account = {
    userId,
    type: "password" as AdapterAccount["type"],
    provider: "password",
    providerAccountId: userId,
    passwordHash: "$scrypt$N=32768,r=8,p=1$c2FsdA$aGFzaA",
  };
  // Until the column exists, accounts are read and linked as before; only a hash cannot be written.
  expect(await adapter.getAccount("42", "github")).toMatchObject({ provider: "github" });
  await adapter.linkAccount({ userId, type: "oauth", provider: "gitlab", providerAccountId: "7" });
  await expect(adapter.linkAccount(account)).rejects.toThrow(
    "linkAccount failed (DriverException)",
  );

  const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  expect(pending).toMatch(/add column `passwordHash` text null/);
  await orm.schema.updateSchema();
  expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe("");

  const old = await adapter.getAccount("42", "github");
  expect(old).toMatchObject({ userId, provider: "github", access_token: "old-access-token" });
  expect(old).not.toHaveProperty("passwordHash");

  await adapter.linkAccount(account);
  expect(await adapter.getAccount(userId, "password")).toMatchObject(account);
  expect((await adapter.listAccountsByUserId(userId)).map((a) => a.passwordHash)).toEqual([
    undefined,
    undefined,
    account.passwordHash,
  ]);
});
