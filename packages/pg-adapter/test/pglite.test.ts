/**
 * The adapter on PGlite (PostgreSQL compiled to WebAssembly, in-process): the conformance suite
 * in the default `public` schema, the extra cases and the schema checks in schemas of their own.
 * One instance for the whole file: starting PGlite (its initdb) is the slow part.
 */
import { PGlite } from "@electric-sql/pglite";
import { runAdapterTests } from "@gatehousejs/adapter-test";
import { afterAll, describe, expect, test } from "vitest";
import { createSchemaSql, migrate, PostgresAdapter, schemaSql } from "../src/index.js";
import { storeCases } from "./support/cases.js";
import { readers } from "./support/readers.js";

const db = new PGlite();
afterAll(() => db.close());

runAdapterTests({
  name: "PGlite",
  adapter: PostgresAdapter(db),
  db: { connect: () => migrate(db), ...readers(db, "public") },
});

storeCases("PGlite", async () => {
  await migrate(db, { schema: "gh_extra" });
  return { client: db, schema: "gh_extra", close: async () => {} };
});

/** Columns, constraints and indexes of `schema`, with the schema name taken out. */
async function catalog(schema: string) {
  const { rows } = await db.query<{ line: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
            coalesce(column_default, '') AS line
     FROM information_schema.columns WHERE table_schema = $1
     UNION ALL
     SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
     FROM pg_constraint WHERE connamespace = $1::regnamespace
     UNION ALL
     SELECT indexdef FROM pg_indexes WHERE schemaname = $1
     ORDER BY 1`,
    [schema],
  );
  return rows.map((r) => r.line.replaceAll(`"${schema}".`, "").replaceAll(`${schema}.`, ""));
}

describe("schema on PGlite", () => {
  test("schema.sql runs as it is, and over tables that migrate made", async () => {
    await migrate(db);
    const before = await catalog("public");
    await db.exec(schemaSql);
    expect(await catalog("public")).toEqual(before);
  });

  test("createSchemaSql and migrate make the same tables, constraints and indexes", async () => {
    await db.exec(createSchemaSql("gh_sql"));
    await migrate(db, { schema: "gh_migrated" });
    await migrate(db, { schema: "gh_migrated" });
    const made = await catalog("gh_migrated");
    expect(made.length).toBeGreaterThan(30);
    expect(await catalog("gh_sql")).toEqual(made);
  });

  test("every lookup column is indexed, and rows of a user go with it", async () => {
    await migrate(db, { schema: "gh_indexes" });
    const { rows: indexes } = await db.query<{ def: string }>(
      "SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'gh_indexes'",
    );
    const lookups = [
      /UNIQUE INDEX .* ON gh_indexes\.users .*\(email\) WHERE \(email <> ''::text\)/,
      /UNIQUE INDEX .* ON gh_indexes\.accounts .*\(provider, "providerAccountId"\)/,
      /INDEX .* ON gh_indexes\.accounts .*\("userId"\)/,
      /UNIQUE INDEX .* ON gh_indexes\.sessions .*\("sessionToken"\)/,
      /INDEX .* ON gh_indexes\.sessions .*\("userId"\)/,
      /UNIQUE INDEX .* ON gh_indexes\.verification_tokens .*\(identifier, token\)/,
      /UNIQUE INDEX .* ON gh_indexes\.authenticators .*\("credentialID"\)/,
      /INDEX .* ON gh_indexes\.authenticators .*\("userId"\)/,
    ];
    for (const lookup of lookups) {
      expect(
        indexes.some((i) => lookup.test(i.def)),
        `${lookup} in ${indexes.map((i) => i.def).join("\n")}`,
      ).toBe(true);
    }
    const { rows: cascades } = await db.query<{ tbl: string }>(
      `SELECT conrelid::regclass::text AS tbl FROM pg_constraint
       WHERE connamespace = 'gh_indexes'::regnamespace AND contype = 'f' AND confdeltype = 'c'
       ORDER BY 1`,
    );
    expect(cascades.map((c) => c.tbl)).toEqual([
      "gh_indexes.accounts",
      "gh_indexes.authenticators",
      "gh_indexes.sessions",
    ]);
  });

  test("migrate creates a missing schema, its name kept exactly", async () => {
    await migrate(db, { schema: "Gh_Case" });
    const adapter = PostgresAdapter(db, { schema: "Gh_Case" });
    const user = await adapter.createUser({ id: "", email: "", emailVerified: null });
    const { rows } = await db.query(`SELECT "id" FROM "Gh_Case"."users"`);
    expect(rows).toEqual([{ id: user.id }]);
  });
});
