/**
 * The Prisma adapter and stores on MySQL/MariaDB: a client generated from prisma/mysql.prisma, the tables
 * created with `sqlStatements("mysql")` of @gatehousejs/cli, every suite of @gatehousejs/adapter-test.
 */
import { describe, expect, test } from "vitest";
import { open } from "./support/databases.js";
import { typeErrors } from "./support/fits.js";
import { prismaSuites } from "./support/suites.js";

const db = await open("mysql");

if (db) prismaSuites("Prisma 7, MariaDB (@prisma/adapter-mariadb)", db);
else
  describe.skip("Prisma 7, MariaDB (@prisma/adapter-mariadb)", () =>
    test("server unreachable", () => {}));

test("the generated mysql client fits PrismaAdapter and the stores as it is (tsc)", async () => {
  expect(await typeErrors("mysql")).toBe("");
}, 120_000);
