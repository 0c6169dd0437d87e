/**
 * The Prisma adapter and stores on postgresql: a client generated from prisma/postgresql.prisma, the tables
 * created with `sqlStatements("postgresql")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test,
 * and the same tables without their optional columns (an older schema).
 */
import { describe, expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { olderSchemaSuite } from "./support/older-schema.js";
import { prismaSuites } from "./support/suites.js";

const db = await open("postgresql");

if (db) {
  prismaSuites("Prisma 7, PostgreSQL (@prisma/adapter-pg)", db);
  // A second database, whose tables lack the optional columns added since they first shipped.
  const older = await open("postgresql");
  if (older) olderSchemaSuite("Prisma 7, PostgreSQL (@prisma/adapter-pg)", older);
} else
  describe.skip("Prisma 7, PostgreSQL (@prisma/adapter-pg)", () =>
    test("server unreachable", () => {}));

test("the generated postgresql client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("postgresql")).toBe("");
}, 120_000);
