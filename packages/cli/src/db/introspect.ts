/**
 * What a database holds: its tables, their columns and index names, read from the catalog
 * (`information_schema` on PostgreSQL and MySQL, `sqlite_master` and `PRAGMA table_info` on SQLite).
 */
import type { Dialect } from "../schema/index.js";
import type { Connection } from "./connect.js";

/** One table as found. */
export interface FoundTable {
  /** Column names, with whether each allows NULL. */
  columns: Map<string, { nullable: boolean; type: string }>;
  /** Index and unique-constraint names. */
  indexes: Set<string>;
}

/** The tables found, by name. */
export type Found = Map<string, FoundTable>;

function table(found: Found, name: string): FoundTable {
  let t = found.get(name);
  if (!t) {
    t = { columns: new Map(), indexes: new Set() };
    found.set(name, t);
  }
  return t;
}

/** The PostgreSQL schema a connection works in, unless one is given. */
export async function currentSchema(conn: Connection): Promise<string> {
  const rows = await conn.query("SELECT current_schema() AS s");
  return String(rows[0]?.s ?? "public");
}

/**
 * Reads the tables of the database (PostgreSQL: of `schema`; MySQL: of the connection's database;
 * SQLite: of the main database).
 */
export async function introspect(conn: Connection, schema?: string): Promise<Found> {
  const found: Found = new Map();
  const dialect: Dialect = conn.dialect;
  if (dialect === "postgresql") {
    const s = schema ?? (await currentSchema(conn));
    for (const r of await conn.query(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1",
      [s],
    )) {
      table(found, String(r.t));
    }
    for (const r of await conn.query(
      `SELECT table_name AS t, column_name AS c, data_type AS type, is_nullable AS n
       FROM information_schema.columns WHERE table_schema = $1`,
      [s],
    )) {
      table(found, String(r.t)).columns.set(String(r.c), {
        nullable: r.n === "YES",
        type: String(r.type),
      });
    }
    for (const r of await conn.query(
      "SELECT tablename AS t, indexname AS i FROM pg_indexes WHERE schemaname = $1",
      [s],
    )) {
      table(found, String(r.t)).indexes.add(String(r.i));
    }
    return found;
  }
  if (dialect === "mysql") {
    for (const r of await conn.query(
      "SELECT TABLE_NAME AS t FROM information_schema.tables WHERE table_schema = DATABASE()",
    )) {
      table(found, String(r.t));
    }
    for (const r of await conn.query(
      `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLUMN_TYPE AS type, IS_NULLABLE AS n
       FROM information_schema.columns WHERE table_schema = DATABASE()`,
    )) {
      table(found, String(r.t)).columns.set(String(r.c), {
        nullable: r.n === "YES",
        type: String(r.type),
      });
    }
    for (const r of await conn.query(
      "SELECT DISTINCT TABLE_NAME AS t, INDEX_NAME AS i FROM information_schema.statistics WHERE table_schema = DATABASE()",
    )) {
      table(found, String(r.t)).indexes.add(String(r.i));
    }
    return found;
  }
  const tables = await conn.query(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  for (const r of tables) {
    const name = String(r.name);
    const t = table(found, name);
    for (const c of await conn.query(`PRAGMA table_info("${name.replaceAll('"', '""')}")`)) {
      // A primary key column is NOT NULL in Gatehouse's tables whatever SQLite reports.
      t.columns.set(String(c.name), {
        nullable: c.notnull === 0 && c.pk === 0,
        type: String(c.type),
      });
    }
  }
  for (const r of await conn.query(
    "SELECT tbl_name AS t, name AS i FROM sqlite_master WHERE type = 'index'",
  )) {
    table(found, String(r.t)).indexes.add(String(r.i));
  }
  return found;
}
