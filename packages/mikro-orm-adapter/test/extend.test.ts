import { runAdapterTests } from "@gatehousejs/adapter-test";
import type { Opt } from "@mikro-orm/core";
import { MikroORM } from "@mikro-orm/sqlite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  defineGatehouseEntities,
  Session as GatehouseSession,
  User as GatehouseUser,
  MikroOrmAdapter,
} from "../src/index.js";

// What the README shows: subclasses that keep the class names, with one more column each.
class User extends GatehouseUser {
  declare role: Opt<string>;
}
class Session extends GatehouseSession {
  declare userAgent?: string | null;
}
const entities = defineGatehouseEntities({
  User: {
    class: User,
    properties: { role: { type: "string", default: "member", onCreate: () => "member" } },
  },
  Session: {
    class: Session,
    tableName: "user_sessions",
    properties: { userAgent: { type: "text", nullable: true } },
  },
});

const orm = await MikroORM.init({ dbName: ":memory:", entities: [...entities.list] });
const adapter = MikroOrmAdapter(orm, { entities });

describe("MikroOrmAdapter with extended entities", () => {
  beforeAll(async () => {
    await orm.schema.createSchema();
  });
  afterAll(async () => {
    await orm.close(true);
  });

  runAdapterTests({ name: "mikro-orm (SQLite, extended User and Session)", adapter });

  test("an added column is written from the input and comes back in every user row", async () => {
    const id = crypto.randomUUID();
    const email = `role-${id}@example.com`;
    const input = { id, email, emailVerified: null, role: "admin" };
    expect(await adapter.createUser(input)).toMatchObject({ role: "admin" });
    expect(await adapter.getUser(id)).toMatchObject({ role: "admin" });
    expect(await adapter.getUserByEmail(email)).toMatchObject({ role: "admin" });
    const session = {
      sessionToken: crypto.randomUUID(),
      userId: id,
      expires: new Date(),
      userAgent: "test-agent",
    };
    await adapter.createSession(session);
    const found = await adapter.getSessionAndUser(session.sessionToken);
    expect(found?.user).toMatchObject({ role: "admin" });
    expect(found?.session).toMatchObject({ userAgent: "test-agent" });
    const patch = { id, role: "owner" } as { id: string };
    expect(await adapter.updateUser(patch)).toMatchObject({ role: "owner", email });
  });

  test("a user created without the added column gets its default", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: "",
      emailVerified: null,
    });
    expect(user).toMatchObject({ role: "member", email: "", emailVerified: null });
  });

  test("the tables are the extended ones, with the added columns", async () => {
    const connection = orm.em.getConnection();
    const tables = (await connection.execute(
      `select name from sqlite_master where type = 'table' order by name`,
    )) as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual([
      "account_locks",
      "accounts",
      "authenticators",
      "user_sessions",
      "users",
      "verification_tokens",
    ]);
    const columns = async (table: string) =>
      ((await connection.execute(`pragma table_info("${table}")`)) as { name: string }[]).map(
        (c) => c.name,
      );
    expect(await columns("users")).toEqual([
      "id",
      "name",
      "email",
      "emailVerified",
      "image",
      "role",
    ]);
    expect(await columns("user_sessions")).toContain("user_agent");
  });
});
