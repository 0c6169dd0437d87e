/**
 * The column types and the email index follow the platform of the ORM that discovers the
 * entities; no server is needed, only the SQL each platform would run.
 */
import { MikroORM as MariaDb } from "@mikro-orm/mariadb";
import { MikroORM as Postgres } from "@mikro-orm/postgresql";
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

async function postgres(list: GatehouseEntities["list"]) {
  const orm = await Postgres.init({
    clientUrl: "postgresql://nobody@127.0.0.1:1/none",
    entities: [...list],
    connect: false,
  });
  opened.push(orm);
  return orm.schema.getCreateSchemaSQL({ wrap: false });
}

test("on MariaDB: binary collations, datetime(3), a varbinary lock key, a plain email index and a unique generated email_key", async () => {
  const sql = await mariadb(defineGatehouseEntities().list);
  expect(sql).toMatch(/`sessionToken` varchar\(255\) collate utf8mb4_bin not null/);
  expect(sql).toMatch(/`userId` varchar\(255\) collate utf8mb4_bin not null/);
  expect(sql).toMatch(/`refresh_token` text collate utf8mb4_bin null/);
  expect(sql).toMatch(/`expires` datetime\(3\) not null/);
  expect(sql).toMatch(/`key` varbinary\(3072\) not null/);
  expect(sql).toContain("create index `users_email_key` on `users` (`email`);");
  expect(sql).not.toMatch(/ where /);
  // Real addresses are unique through a generated column: the email, or NULL for "".
  expect(sql).toContain(
    "`email_key` varbinary(1280) generated always as (nullif(`email`, '')) stored, primary key (`id`))",
  );
  expect(sql).toContain("alter table `users` add unique `users_email_unique`(`email_key`);");
});

test("on SQLite: MikroORM's own types and the partial unique email index", async () => {
  const sql = await sqlite(defineGatehouseEntities().list);
  expect(sql).not.toMatch(/collate|varbinary|datetime\(|[`"]email_key|users_email_unique/);
  expect(sql).toContain(
    `create unique index "users_email_key" on "users" ("email") where "email" <> ''`,
  );
  // The users table exactly as before MySQL's `email_key`: no column of it here.
  expect(sql).toContain(
    "create table `users` (`id` text not null, `name` text null, `email` text not null default '', `emailVerified` datetime null, `image` text null, primary key (`id`));",
  );
});

test("on PostgreSQL: MikroORM's own types and the partial unique email index", async () => {
  const sql = await postgres(defineGatehouseEntities().list);
  expect(sql).not.toMatch(/collate|varbinary|[`"]email_key|users_email_unique/);
  expect(sql).toContain(
    'create table "users" ("id" varchar(255) not null, "name" text null, "email" varchar(320) not null default \'\', "emailVerified" timestamptz null, "image" text null, constraint "users_pkey" primary key ("id"));',
  );
  expect(sql).toContain(
    `create unique index "users_email_key" on "public"."users" ("email") where "email" <> ''`,
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
