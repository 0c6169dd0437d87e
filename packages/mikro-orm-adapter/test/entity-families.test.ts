/**
 * The column types and the email index follow the platform of the ORM that discovers the
 * entities; no server is needed, only the SQL each platform would run.
 */
import { MikroORM as MariaDb } from "@mikro-orm/mariadb";
import { MikroORM as Sqlite } from "@mikro-orm/sqlite";
import { afterAll, expect, test } from "vitest";
import { defineGatehouseEntities, type GatehouseEntities } from "../src/index.js";

const opened: { close(force?: boolean): Promise<void> }[] = [];
afterAll(() => Promise.all(opened.map((orm) => orm.close(true))));

async function sqlite(list: GatehouseEntities["list"]) {
  const orm = await Sqlite.init({ dbName: ":memory:", entities: [...list] });
  opened.push(orm);
  return orm.schema.getCreateSchemaSQL({ wrap: false });
}
async function mariadb(list: GatehouseEntities["list"]) {
  const orm = await MariaDb.init({
    clientUrl: "mysql://nobody@127.0.0.1:1/none",
    entities: [...list],
    connect: false,
  });
  opened.push(orm);
  return orm.schema.getCreateSchemaSQL({ wrap: false });
}

test("on MariaDB: binary collations, datetime(3), a varbinary lock key and a plain email index", async () => {
  const sql = await mariadb(defineGatehouseEntities().list);
  expect(sql).toMatch(/`sessionToken` varchar\(255\) collate utf8mb4_bin not null/);
  expect(sql).toMatch(/`userId` varchar\(255\) collate utf8mb4_bin not null/);
  expect(sql).toMatch(/`refresh_token` text collate utf8mb4_bin null/);
  expect(sql).toMatch(/`expires` datetime\(3\) not null/);
  expect(sql).toMatch(/`key` varbinary\(3072\) not null/);
  expect(sql).toContain("create index `users_email_key` on `users` (`email`);");
  expect(sql).not.toMatch(/ where /);
});

test("on SQLite: MikroORM's own types and the partial unique email index", async () => {
  const sql = await sqlite(defineGatehouseEntities().list);
  expect(sql).not.toMatch(/collate|varbinary|datetime\(/);
  expect(sql).toContain(
    `create unique index "users_email_key" on "users" ("email") where "email" <> ''`,
  );
});

test("one set of entities serves ORMs of one kind; a MariaDB and a SQLite ORM need two", async () => {
  const shared = defineGatehouseEntities();
  await sqlite(shared.list);
  await expect(sqlite(shared.list)).resolves.toMatch(/create unique index "users_email_key"/);
  await expect(mariadb(shared.list)).rejects.toThrow(
    /call defineGatehouseEntities\(\) once for each/,
  );
});
