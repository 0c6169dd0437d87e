/**
 * The Prisma adapter and stores on MySQL/MariaDB: a client generated from prisma/mysql.prisma, the tables
 * created with `sqlStatements("mysql")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test,
 * and the same tables without their optional columns (an older schema).
 */
import { describe, expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { olderSchemaSuite } from "./support/older-schema.js";
import { prismaSuites } from "./support/suites.js";

const db = await open("mysql");

if (db) {
  prismaSuites("Prisma 7, MariaDB (@prisma/adapter-mariadb)", db);
  // A second database, whose tables lack the optional columns added since they first shipped.
  const older = await open("mysql");
  if (older) olderSchemaSuite("Prisma 7, MariaDB (@prisma/adapter-mariadb)", older);
} else
  describe.skip("Prisma 7, MariaDB (@prisma/adapter-mariadb)", () =>
    test("server unreachable", () => {}));

test("the generated mysql client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("mysql")).toBe("");
}, 120_000);
