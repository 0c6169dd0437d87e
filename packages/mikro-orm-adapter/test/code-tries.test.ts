/**
 * Sign-in code tries on SQLite: `orm.schema.updateSchema()` adds the `tries` column to a
 * `verification_tokens` table made before it, and an old token's tries then count from 1.
 */
import { MikroORM } from "@mikro-orm/sqlite";
import { afterAll, expect, test } from "vitest";
import { gatehouseEntities, MikroOrmAdapter } from "../src/index.js";

const orm = await MikroORM.init({ dbName: ":memory:", entities: [...gatehouseEntities.list] });
afterAll(() => orm.close(true));

test("updateSchema adds the tries column; an old token's tries count from 1", async () => {
  await orm.schema.createSchema();
  const sql = (text: string) => orm.em.getConnection().execute(text);
  // The table as the adapter's entities made it before code tries.
  await sql(`drop table "verification_tokens"`);
  await sql(`create table "verification_tokens" (
    "identifier" varchar(320) not null, "token" varchar(255) not null, "expires" datetime not null,
    primary key ("identifier", "token"))`);
  const expires = new Date(Date.now() + 86_400_000);
  await sql(
    `insert into "verification_tokens" values ('old@example.com', 'hash', ${expires.getTime()})`,
  );

  const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  expect(pending).toMatch(/add column `tries` integer not null default 0/);
  await orm.schema.updateSchema();

  const adapter = MikroOrmAdapter(orm);
  const key = { identifier: "old@example.com", token: "hash" };
  expect(await adapter.countVerificationTokenTry(key, 2)).toBe(1);
  expect(await adapter.countVerificationTokenTry(key, 2)).toBe(2);
  expect(await adapter.countVerificationTokenTry(key, 2)).toBeNull();
  expect(await adapter.useVerificationToken(key)).toEqual({ ...key, expires });
});
