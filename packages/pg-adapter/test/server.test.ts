/**
 * The adapter on a real PostgreSQL server (DATABASE_URL), through a `pg` Pool and a `pg` Client,
 * each in a fresh schema that is dropped afterwards.
 */
import { runAdapterTests } from "@gatehousejs/adapter-test";
import { Client, Pool } from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { migrate, PostgresAdapter } from "../src/index.js";
import { storeCases } from "./support/cases.js";
import { connectionDropCases } from "./support/connection-drop.js";
import { readers } from "./support/readers.js";
import { DATABASE_URL, freshSchemaName, serverReachable } from "./support/server.js";

/** A pool whose idle clients may be killed by the server without crashing the process. */
function newPool(max: number): Pool {
  const pool = new Pool({ connectionString: DATABASE_URL, max });
  pool.on("error", () => {});
  return pool;
}

const drop = (client: Pool | Client, schema: string) =>
  client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);

describe.skipIf(!serverReachable)("PostgreSQL server", () => {
  describe("through a pg Pool", () => {
    const schema = freshSchemaName();
    const pool = newPool(10);
    runAdapterTests({
      name: "PostgreSQL server, pg Pool",
      adapter: PostgresAdapter(pool, { schema }),
      db: {
        connect: () => migrate(pool, { schema }),
        disconnect: async () => {
          await drop(pool, schema);
          await pool.end();
        },
        ...readers(pool, schema),
      },
    });
  });

  describe("through a pg Client", () => {
    const schema = freshSchemaName();
    const client = new Client({ connectionString: DATABASE_URL });
    runAdapterTests({
      name: "PostgreSQL server, pg Client",
      adapter: PostgresAdapter(client, { schema }),
      db: {
        connect: async () => {
          await client.connect();
          await migrate(client, { schema });
        },
        disconnect: async () => {
          await drop(client, schema);
          await client.end();
        },
        ...readers(client, schema),
      },
    });
  });

  // 20 connections, so the races below really run in parallel on the server.
  storeCases("a PostgreSQL server (pg Pool, 20 connections)", async () => {
    const schema = freshSchemaName();
    const pool = newPool(20);
    await migrate(pool, { schema });
    return {
      client: pool,
      schema,
      close: async () => {
        await drop(pool, schema);
        await pool.end();
      },
    };
  });

  connectionDropCases();

  describe("named statements", () => {
    test("node-postgres clients prepare each statement once per connection", async () => {
      const schema = freshSchemaName();
      const client = new Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        await migrate(client, { schema });
        const adapter = PostgresAdapter(client, { schema });
        const user = await adapter.createUser({
          id: crypto.randomUUID(),
          email: "",
          emailVerified: null,
        });
        const expires = new Date(Date.now() + 60_000);
        await adapter.createSession({ sessionToken: "named-1", userId: user.id, expires });
        for (let i = 0; i < 3; i++)
          expect(await adapter.getSessionAndUser("named-1")).not.toBeNull();
        const { rows } = await client.query(
          "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'gatehouse_%'",
        );
        const join = rows.filter((r: { statement: string }) => r.statement.includes("JOIN"));
        // One prepared join, reused by all three checks.
        expect(join).toHaveLength(1);
      } finally {
        await drop(client, schema);
        await client.end();
      }
    });
  });

  describe("migrate", () => {
    const pool = newPool(8);
    const schemas: string[] = [];
    afterAll(async () => {
      for (const schema of schemas) await drop(pool, schema);
      await pool.end();
    });

    test("runs from many connections at once on a new schema, and again", async () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      await Promise.all(Array.from({ length: 8 }, () => migrate(pool, { schema })));
      await migrate(pool, { schema });
      const { rows } = await pool.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
        [schema],
      );
      expect(rows.map((r) => r.table_name)).toEqual([
        "account_locks",
        "accounts",
        "authenticators",
        "sessions",
        "users",
        "verification_tokens",
      ]);
    });
  });
});
