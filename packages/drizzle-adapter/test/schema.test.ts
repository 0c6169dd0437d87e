/**
 * The Drizzle schema modules (`/pg`, `/mysql`, `/sqlite`) describe exactly the tables that
 * `sqlStatements` of `@gatehousejs/cli/schema` creates: the same tables, the same columns, with
 * the same SQL types and nullability, read back from each database's catalog.
 */
import { getTableColumns, getTableName, is, Table } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import * as mysqlTables from "../src/mysql.js";
import * as pgTables from "../src/pg.js";
import * as sqliteTables from "../src/sqlite.js";
import { type Harness, openBetterSqlite, openMariadb, openPglite } from "./support/databases.js";
import { mariadbReachable } from "./support/servers.js";

type Shape = Record<string, string>;

/** `table.column` → `type null|not null`, from a schema module. */
function declared(module: Record<string, unknown>, normalize: (type: string) => string): Shape {
  const shape: Shape = {};
  for (const table of Object.values(module)) {
    if (!is(table, Table)) continue;
    for (const column of Object.values(getTableColumns(table))) {
      const type = normalize(column.getSQLType());
      shape[`${getTableName(table)}.${column.name}`] =
        `${type} ${column.notNull ? "not null" : "null"}`;
    }
  }
  return shape;
}

/** Asserts the two shapes are equal, and not trivially: every table and column is there. */
function expectSame(found: Shape, wanted: Shape) {
  expect(Object.keys(wanted).length).toBeGreaterThan(75);
  expect(found).toEqual(wanted);
}

async function catalog(h: Harness, normalize: (type: string) => string): Promise<Shape> {
  const rows =
    h.dialect === "sqlite"
      ? await h.query(
          `SELECT m.name AS t, p.name AS c, p.type AS type, p."notnull" OR p.pk AS required
           FROM sqlite_master m JOIN pragma_table_info(m.name) p
           WHERE m.type = 'table'`,
        )
      : h.dialect === "mysql"
        ? await h.query(
            `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLUMN_TYPE AS type,
                    IS_NULLABLE = 'NO' AS required
             FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()`,
          )
        : await h.query(
            `SELECT table_name AS t, column_name AS c, data_type AS type,
                    is_nullable = 'NO' AS required
             FROM information_schema.columns WHERE table_schema = 'public'`,
          );
  const shape: Shape = {};
  for (const row of rows) {
    const required = row.required === true || Number(row.required) === 1;
    shape[`${row.t}.${row.c}`] = `${normalize(String(row.type))} ${required ? "not null" : "null"}`;
  }
  return shape;
}

const lower = (type: string) => type.toLowerCase();
// MariaDB shows display widths (`bigint(20)`), booleans as tinyint(1), and `json` as longtext.
const mysqlType = (type: string) =>
  lower(type)
    .replace(/^(bigint|int)\(\d+\)$/, "$1")
    .replace(/^tinyint\(1\)$/, "boolean")
    .replace(/^longtext$/, "json");

const mariadb = await mariadbReachable();

describe("the Drizzle schema modules match the CLI's DDL", () => {
  test("PostgreSQL (/pg) on PGlite", async () => {
    const h = openPglite();
    await h.setup();
    try {
      expectSame(await catalog(h, lower), declared(pgTables, lower));
    } finally {
      await h.close();
    }
  });

  test("SQLite (/sqlite) on better-sqlite3", async () => {
    const h = openBetterSqlite();
    await h.setup();
    try {
      expectSame(await catalog(h, lower), declared(sqliteTables, lower));
    } finally {
      await h.close();
    }
  });

  test.skipIf(!mariadb)("MySQL (/mysql) on MariaDB", async () => {
    const h = openMariadb(2);
    await h.setup();
    try {
      expectSame(await catalog(h, mysqlType), declared(mysqlTables, mysqlType));
    } finally {
      await h.close();
    }
  });
});
