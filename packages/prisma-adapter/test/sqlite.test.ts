/**
 * The Prisma adapter and stores on sqlite: a client generated from prisma/sqlite.prisma, the tables
 * created with `sqlStatements("sqlite")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test,
 * and the same tables without their optional columns (an older schema).
 */
import { expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { olderSchemaSuite } from "./support/older-schema.js";
import { prismaSuites } from "./support/suites.js";

// SQLite is a file in a temporary folder: never unreachable, so nothing here is skipped.
const db = await open("sqlite");
if (!db) throw new Error("the SQLite database could not be opened");
prismaSuites("Prisma 7, SQLite (@prisma/adapter-better-sqlite3)", db);
// A second database, whose tables lack the optional columns added since they first shipped.
const older = await open("sqlite");
if (!older) throw new Error("the second SQLite database could not be opened");
olderSchemaSuite("Prisma 7, SQLite (@prisma/adapter-better-sqlite3)", older);

test("the generated sqlite client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("sqlite")).toBe("");
}, 120_000);
