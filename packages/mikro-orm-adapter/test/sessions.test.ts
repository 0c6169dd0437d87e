/**
 * Session records (issue 12) on SQLite: `orm.schema.updateSchema()` adds their columns to a
 * `sessions` table made before them, whose rows stay readable, without metadata.
 */
import { MikroORM } from "@mikro-orm/sqlite";
import { afterAll, expect, test } from "vitest";
import { gatehouseEntities, MikroOrmAdapter } from "../src/index.js";

const orm = await MikroORM.init({ dbName: ":memory:", entities: [...gatehouseEntities.list] });
afterAll(() => orm.close(true));

const DAY = 86_400_000;

test("updateSchema adds the session-record columns; an old row reads back without metadata", async () => {
  await orm.schema.createSchema();
  const sql = (text: string) => orm.em.getConnection().execute(text);
  // The table as the adapter's entities made it before session records.
  await sql(`drop table "sessions"`);
  await sql(`create table "sessions" (
    "id" varchar(255) not null primary key,
    "userId" varchar(255) not null references "users" ("id") on delete cascade on update cascade,
    "sessionToken" varchar(255) not null,
    "expires" datetime not null)`);
  await sql(`create unique index "sessions_sessionToken_key" on "sessions" ("sessionToken")`);
  const userId = crypto.randomUUID();
  const expires = new Date(Date.now() + DAY);
  await sql(`insert into "users" ("id", "email") values ('${userId}', 'old@example.com')`);
  await sql(`insert into "sessions" ("id", "userId", "sessionToken", "expires")
    values ('old-row', '${userId}', 'old-token', ${expires.getTime()})`);

  const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  for (const column of ["createdAt", "lastSeenAt", "provider", "providerType", "client", "ip"]) {
    expect(pending).toMatch(new RegExp(`add column \`${column}\` \\w+ null`));
  }
  await orm.schema.updateSchema();

  const adapter = MikroOrmAdapter(orm);
  const old = await adapter.getSessionAndUser("old-token");
  expect(old?.session).toMatchObject({ sessionToken: "old-token", userId });
  // Nothing recorded means no field at all, as Auth.js's contract reads a session.
  expect(Object.keys(old?.session ?? {}).sort()).toEqual([
    "expires",
    "id",
    "sessionToken",
    "userId",
  ]);
  expect(old?.session.expires.getTime()).toBe(expires.getTime());

  const createdAt = new Date(Date.now() - 1000);
  await adapter.createSession({
    sessionToken: "new-token",
    userId,
    expires,
    createdAt,
    lastSeenAt: createdAt,
    provider: "github",
    providerType: "oauth",
    client: "Edge 131 on Windows",
    ip: "198.51.100.0",
  });
  const listed = await adapter.listSessionsByUserId(userId);
  expect(listed.map((s) => s.sessionToken)).toEqual(["new-token", "old-token"]);
  expect(listed[0]?.createdAt?.getTime()).toBe(createdAt.getTime());
  expect(listed[0]).toMatchObject({ provider: "github", client: "Edge 131 on Windows" });
  expect(await adapter.deleteSessionsByUserId(userId, { except: "new-token" })).toBe(1);
  expect((await adapter.listSessionsByUserId(userId)).map((s) => s.sessionToken)).toEqual([
    "new-token",
  ]);
});
