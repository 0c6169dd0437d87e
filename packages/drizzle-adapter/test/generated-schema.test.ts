/**
 * The Drizzle schema file that `gatehouse generate --adapter drizzle` writes works as the
 * adapter's tables: it is rendered with `drizzleSchema`, written into a module, imported and given
 * to `DrizzleAdapter(db, { tables })`, and the whole adapter suite runs on it.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runAdapterTests } from "@gatehousejs/adapter-test";
import { type Dialect, drizzleSchema } from "@gatehousejs/cli/schema";
import { is, Table } from "drizzle-orm";
import { afterAll, expect, test } from "vitest";
import { DrizzleAdapter, type TablesOption } from "../src/index.js";
import { type Harness, openBetterSqlite, openPglite } from "./support/databases.js";
import { readers } from "./support/readers.js";

// Inside the package, so that the module's `drizzle-orm` imports resolve; .tmp/ is ignored by git.
const folder = join(import.meta.dirname, ".tmp", randomBytes(6).toString("hex"));
mkdirSync(folder, { recursive: true });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function generated(dialect: Dialect): Promise<TablesOption> {
  const file = join(folder, `auth-schema-${dialect}.ts`);
  writeFileSync(file, drizzleSchema(dialect));
  return (await import(pathToFileURL(file).href)) as TablesOption;
}

for (const [dialect, open] of [
  ["sqlite", openBetterSqlite],
  ["postgresql", openPglite],
] as const) {
  const h: Harness = open();
  const tables = await generated(dialect);
  test(`the generated ${dialect} schema exports every table under the names the adapter takes`, () => {
    const names = Object.entries(tables)
      .filter(([, table]) => is(table, Table))
      .map(([name]) => name)
      .sort();
    expect(names).toEqual([
      "accountLocks",
      "accounts",
      "authenticators",
      "jwtSessions",
      "rateLimits",
      "revocationEpochs",
      "revokedSessions",
      "securityEvents",
      "sessions",
      "users",
      "verificationTokens",
    ]);
  });
  runAdapterTests({
    name: `${h.name}, tables from the generated Drizzle schema`,
    adapter: DrizzleAdapter(h.db, { tables }),
    db: { connect: () => h.setup(), disconnect: () => h.close(), ...readers(h) },
  });
}
