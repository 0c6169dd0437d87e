/**
 * The Prisma adapter and stores on postgresql: a client generated from prisma/postgresql.prisma, the tables
 * created with `sqlStatements("postgresql")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test.
 */
import { describe, expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { prismaSuites } from "./support/suites.js";

const db = await open("postgresql");

if (db) prismaSuites("Prisma 7, PostgreSQL (@prisma/adapter-pg)", db);
else
  describe.skip("Prisma 7, PostgreSQL (@prisma/adapter-pg)", () =>
    test("server unreachable", () => {}));

test("the generated postgresql client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("postgresql")).toBe("");
}, 120_000);
