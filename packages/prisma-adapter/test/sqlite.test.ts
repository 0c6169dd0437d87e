/**
 * The Prisma adapter and stores on sqlite: a client generated from prisma/sqlite.prisma, the tables
 * created with `sqlStatements("sqlite")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test,
 * and the same tables without their optional columns (an older schema).
 */
import { describe, expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { olderSchemaSuite } from "./support/older-schema.js";
import { prismaSuites } from "./support/suites.js";

const db = await open("sqlite");

if (db) {
  prismaSuites("Prisma 7, SQLite (@prisma/adapter-better-sqlite3)", db);
  // A second database, whose tables lack the optional columns added since they first shipped.
  const older = await open("sqlite");
  if (older) olderSchemaSuite("Prisma 7, SQLite (@prisma/adapter-better-sqlite3)", older);
} else
  describe.skip("Prisma 7, SQLite (@prisma/adapter-better-sqlite3)", () =>
    test("server unreachable", () => {}));

test("the generated sqlite client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("sqlite")).toBe("");
}, 120_000);
