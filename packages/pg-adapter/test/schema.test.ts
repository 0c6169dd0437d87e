/**
 * The shipped SQL and the schema option, without a database.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  createSchemaSql,
  migrate,
  PostgresAdapter,
  type Queryable,
  schemaSql,
} from "../src/index.js";

const recorder = () => {
  const statements: string[] = [];
  const client: Queryable = {
    query: async (text) => {
      statements.push(text);
      return { rows: [] };
    },
  };
  return { client, statements };
};

describe("schema SQL", () => {
  test("schema.sql is the exported schemaSql (tables in public)", () => {
    const file = readFileSync(new URL("../schema.sql", import.meta.url), "utf8");
    expect(file, "schema.sql is stale: npm run schema:sql -w packages/pg-adapter").toBe(schemaSql);
    expect(schemaSql).toBe(createSchemaSql("public"));
    expect(schemaSql).not.toMatch(/CREATE SCHEMA/);
  });

  test("createSchemaSql qualifies every table with the quoted schema and creates it", () => {
    const sql = createSchemaSql("Auth_2");
    expect(sql).toMatch(/^CREATE SCHEMA IF NOT EXISTS "Auth_2";$/m);
    expect(sql).not.toMatch(/"public"/);
    const tables = [...sql.matchAll(/CREATE TABLE IF NOT EXISTS ("[^"]+")\."(\w+)"/g)];
    expect(tables.map((m) => m[1])).toEqual(Array(6).fill('"Auth_2"'));
    expect(tables.map((m) => m[2])).toEqual([
      "users",
      "accounts",
      "account_locks",
      "sessions",
      "verification_tokens",
      "authenticators",
    ]);
  });

  test("migrate is a single statement", async () => {
    const { client, statements } = recorder();
    await migrate(client, { schema: "auth" });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^DO \$gatehouse\$/);
  });
});

describe("the schema option", () => {
  const unsafe = ['a"b', "a; DROP TABLE users", "1abc", "", "a b", "é", "x".repeat(64)];

  test.each(unsafe)("refuses %j before any SQL runs", async (schema) => {
    const { client, statements } = recorder();
    expect(() => PostgresAdapter(client, { schema })).toThrow(TypeError);
    expect(() => createSchemaSql(schema)).toThrow(TypeError);
    await expect(migrate(client, { schema })).rejects.toThrow(TypeError);
    expect(statements).toEqual([]);
  });

  test("puts the quoted schema in front of every table the adapter touches", async () => {
    const { client, statements } = recorder();
    const adapter = PostgresAdapter(client, { schema: "Auth_2" });
    await adapter.getSessionAndUser("token");
    await adapter.getUserByAccount({ provider: "p", providerAccountId: "a" });
    await adapter.useVerificationToken({ identifier: "i", token: "t" });
    for (const sql of statements) {
      const tables = [...sql.matchAll(/(?:FROM|JOIN|INTO|UPDATE)\s+(\S+)/g)].map((m) => m[1]);
      expect(tables.length).toBeGreaterThan(0);
      for (const table of tables) expect(table).toMatch(/^"Auth_2"\."\w+"$/);
    }
  });
});
