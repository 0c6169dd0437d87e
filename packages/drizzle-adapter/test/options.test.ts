/**
 * The adapter's options and its refusal of what is not a Drizzle database: tables of the app's
 * own (another SQL name, an extra column), and the dialect read from the db object.
 */
import { randomUUID } from "node:crypto";
import { sqlStatements } from "@gatehousejs/cli/schema";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, test } from "vitest";
import { DrizzleAdapter, type DrizzleDatabase } from "../src/index.js";
import { users } from "../src/sqlite.js";

describe("DrizzleAdapter options", () => {
  test("a users table of the app's own: its SQL name, an extra column stored and read back", async () => {
    const client = new Database(":memory:");
    // The package's sessions table refers to its own users table, not to this one.
    client.pragma("foreign_keys = OFF");
    for (const statement of sqlStatements("sqlite")) client.exec(statement);
    client.exec(`CREATE TABLE "people" ("pid" TEXT PRIMARY KEY, "name" TEXT,
      "email" TEXT NOT NULL DEFAULT '', "emailVerified" INTEGER, "image" TEXT, "role" TEXT)`);
    const people = sqliteTable("people", {
      id: text("pid").primaryKey(),
      name: text("name"),
      email: text("email").notNull().default(""),
      emailVerified: integer("emailVerified", { mode: "timestamp_ms" }),
      image: text("image"),
      role: text("role"),
    });
    const adapter = DrizzleAdapter(drizzle({ client }), { tables: { users: people } });
    const user = await adapter.createUser({
      id: randomUUID(),
      email: "role@example.com",
      emailVerified: null,
      role: "admin",
    } as never);
    expect(user).toMatchObject({ email: "role@example.com", role: "admin" });
    expect(await adapter.getUser(user.id)).toEqual(user);
    expect(client.prepare(`SELECT "pid", "role" FROM "people"`).all()).toEqual([
      { pid: user.id, role: "admin" },
    ]);
    // The package's own users table is left alone.
    expect(client.prepare(`SELECT count(*) AS n FROM "users"`).get()).toEqual({ n: 0 });
    const sessionToken = randomUUID();
    await adapter.createSession({
      sessionToken,
      userId: user.id,
      expires: new Date(Date.now() + 1e6),
    });
    expect((await adapter.getSessionAndUser(sessionToken))?.user).toEqual(user);
    client.close();
  });

  test("deleteUser removes the user's rows with SQLite's foreign keys off", async () => {
    const client = new Database(":memory:");
    client.pragma("foreign_keys = OFF");
    for (const statement of sqlStatements("sqlite")) client.exec(statement);
    const adapter = DrizzleAdapter(drizzle({ client }));
    const user = await adapter.createUser({ id: randomUUID(), email: "", emailVerified: null });
    await adapter.linkAccount({
      userId: user.id,
      type: "oauth",
      provider: "github",
      providerAccountId: randomUUID(),
    });
    await adapter.createSession({
      sessionToken: randomUUID(),
      userId: user.id,
      expires: new Date(),
    });
    await adapter.createAuthenticator({
      credentialID: randomUUID(),
      userId: user.id,
      providerAccountId: "p",
      credentialPublicKey: "k",
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
    });
    expect(await adapter.deleteUser(user.id)).toEqual(user);
    for (const table of ["users", "accounts", "sessions", "authenticators"]) {
      expect(client.prepare(`SELECT count(*) AS n FROM "${table}"`).get(), table).toEqual({ n: 0 });
    }
    client.close();
  });

  test("a table without a column Gatehouse needs is refused when the adapter is made", () => {
    const client = new Database(":memory:");
    const partial = sqliteTable("users", { id: text("id").primaryKey() });
    expect(() => DrizzleAdapter(drizzle({ client }), { tables: { users: partial } })).toThrow(
      /options\.tables has no "email" column/,
    );
    expect(users).toBeDefined();
    client.close();
  });

  test("anything but a Drizzle database is refused with a TypeError", () => {
    const notDrizzle = { query: async () => ({ rows: [] }) } as unknown as DrizzleDatabase;
    expect(() => DrizzleAdapter(notDrizzle)).toThrow(TypeError);
  });
});
