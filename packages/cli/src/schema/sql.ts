/**
 * The model as SQL DDL for PostgreSQL, MySQL/MariaDB and SQLite. Every statement is idempotent on
 * its own (`IF NOT EXISTS`), so the whole list can run on every deploy. The statement builders
 * for one table, column or index are exported too: `gatehouse migrate` adds what an existing
 * database lacks with them.
 */
import { resolveFeatures, type SchemaFeatures } from "./features.js";
import { type Column, type Index, isKeyed, type Table, tablesFor } from "./model.js";

/** The SQL dialects Gatehouse writes DDL for. */
export type Dialect = "postgresql" | "mysql" | "sqlite";

/** The dialects, for validation and help text. */
export const DIALECTS: readonly Dialect[] = ["postgresql", "mysql", "sqlite"];

/** Options of {@link sqlStatements}. */
export interface SqlOptions {
  /** The features whose tables to create; omitted, every table. See `resolveFeatures`. */
  features?: Partial<SchemaFeatures>;
  /**
   * PostgreSQL: the schema holding the tables (default `public`; another one is created first).
   * MySQL: the database to qualify table names with (default: the connection's). Not for SQLite.
   */
  schema?: string;
}

/** The MySQL-only stored generated column that makes real addresses unique (no partial indexes). */
export const MYSQL_EMAIL_KEY = "email_key";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Quotes an identifier for `dialect`. */
export function quoteIdent(dialect: Dialect, name: string): string {
  return dialect === "mysql"
    ? `\`${name.replaceAll("`", "``")}\``
    : `"${name.replaceAll('"', '""')}"`;
}

/** The validated schema qualifier with its dot (`"auth".`), or `""` for none. */
export function qualifier(dialect: Dialect, schema: string | undefined): string {
  if (schema === undefined || (dialect === "postgresql" && schema === "public")) return "";
  if (dialect === "sqlite") {
    throw new TypeError("sqlStatements: options.schema is not supported for SQLite");
  }
  if (typeof schema !== "string" || !NAME.test(schema) || schema.length > 63) {
    throw new TypeError(
      "sqlStatements: options.schema must be 1 to 63 letters, digits or underscores, not starting with a digit",
    );
  }
  return `${quoteIdent(dialect, schema)}.`;
}

function typeOf(dialect: Dialect, table: Table, column: Column): string {
  switch (column.type) {
    case "string":
      if (dialect === "postgresql") return "text";
      if (dialect === "sqlite") return "TEXT";
      return isKeyed(table, column) ? "varchar(255)" : "text";
    case "timestamp":
      return dialect === "postgresql"
        ? "timestamptz"
        : dialect === "mysql"
          ? "datetime(3)"
          : "INTEGER";
    case "bigint":
      return dialect === "sqlite" ? "INTEGER" : "bigint";
    case "integer":
      return dialect === "sqlite" ? "INTEGER" : dialect === "mysql" ? "int" : "integer";
    case "boolean":
      return dialect === "postgresql" ? "boolean" : dialect === "mysql" ? "tinyint(1)" : "INTEGER";
    case "json":
      return dialect === "postgresql" ? "jsonb" : dialect === "mysql" ? "json" : "TEXT";
  }
}

function defaultOf(column: Column): string {
  if (column.default === undefined) return "";
  return typeof column.default === "number"
    ? ` DEFAULT ${column.default}`
    : ` DEFAULT '${column.default.replaceAll("'", "''")}'`;
}

/**
 * A column's definition, as in `CREATE TABLE` or `ADD COLUMN` (`q` is the table qualifier, for
 * references). Single-column primary keys and references are inline on PostgreSQL and SQLite.
 */
export function columnSql(dialect: Dialect, table: Table, column: Column, q = ""): string {
  const id = quoteIdent(dialect, column.name);
  let sql = `${id} ${typeOf(dialect, table, column)}`;
  const inlinePk =
    dialect !== "mysql" && table.primaryKey.length === 1 && table.primaryKey[0] === column.name;
  if (inlinePk) sql += dialect === "sqlite" ? " NOT NULL PRIMARY KEY" : " PRIMARY KEY";
  else sql += column.nullable ? (dialect === "mysql" ? " NULL" : "") : " NOT NULL";
  if (column.generatedId && dialect === "postgresql") sql += " DEFAULT gen_random_uuid()::text";
  sql += defaultOf(column);
  if (column.referencesUser && dialect !== "mysql") {
    sql += ` REFERENCES ${q}${quoteIdent(dialect, "users")} (${quoteIdent(dialect, "id")}) ON DELETE CASCADE`;
  }
  return sql;
}

function columnList(dialect: Dialect, index: Index): string {
  const names = index.columns.map((c) => {
    const name = dialect === "mysql" && index.emailPartial ? MYSQL_EMAIL_KEY : c.name;
    // Descending only on PostgreSQL: MySQL and SQLite scan an index backwards as fast, and the
    // Drizzle schema can only declare the order there.
    return `${quoteIdent(dialect, name)}${c.desc && dialect === "postgresql" ? " DESC" : ""}`;
  });
  return `(${names.join(", ")})`;
}

/** The generated column MySQL's `users` has besides the model's (unique real addresses). */
export function mysqlEmailKeySql(): string {
  return `\`${MYSQL_EMAIL_KEY}\` varchar(255) AS (NULLIF(\`email\`, '')) STORED`;
}

/** An index inside MySQL's `CREATE TABLE`, or after `ALTER TABLE … ADD`. */
function mysqlIndex(index: Index): string {
  const kind = index.unique ? "UNIQUE KEY" : "KEY";
  return `${kind} ${quoteIdent("mysql", index.name)} ${columnList("mysql", index)}`;
}

function mysqlForeignKey(table: Table, column: Column, q: string): string {
  const name = quoteIdent("mysql", `${table.name}_${column.name}_fkey`);
  return `CONSTRAINT ${name} FOREIGN KEY (\`${column.name}\`) REFERENCES ${q}\`users\` (\`id\`) ON DELETE CASCADE`;
}

/** `CREATE TABLE IF NOT EXISTS` for one table (MySQL: with its indexes and foreign keys). */
export function createTableSql(dialect: Dialect, table: Table, q = ""): string {
  const lines = table.columns.map((c) => columnSql(dialect, table, c, q));
  if (dialect === "mysql" && table.name === "users") {
    const at = table.columns.findIndex((c) => c.name === "email");
    lines.splice(at + 1, 0, mysqlEmailKeySql());
  }
  const quotedPk = table.primaryKey.map((c) => quoteIdent(dialect, c)).join(", ");
  if (dialect === "mysql" || table.primaryKey.length > 1) lines.push(`PRIMARY KEY (${quotedPk})`);
  if (dialect === "postgresql") {
    for (const index of table.indexes.filter((i) => i.constraint)) {
      lines.push(
        `CONSTRAINT ${quoteIdent(dialect, index.name)} UNIQUE ${columnList(dialect, index)}`,
      );
    }
  }
  if (dialect === "mysql") {
    for (const index of table.indexes) lines.push(mysqlIndex(index));
    for (const column of table.columns.filter((c) => c.referencesUser)) {
      lines.push(mysqlForeignKey(table, column, q));
    }
  }
  const tail =
    dialect === "mysql" ? " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin" : "";
  const name = `${q}${quoteIdent(dialect, table.name)}`;
  return `CREATE TABLE IF NOT EXISTS ${name} (\n  ${lines.join(",\n  ")}\n)${tail}`;
}

/**
 * An index created on its own: PostgreSQL's non-constraint indexes and every SQLite index use
 * `CREATE … INDEX IF NOT EXISTS`; MySQL (inline in `CREATE TABLE`) gets `ALTER TABLE … ADD`,
 * which is not idempotent (for `migrate`, after looking). A PostgreSQL unique constraint gets
 * `ALTER TABLE … ADD CONSTRAINT` (also for `migrate` only).
 */
export function createIndexSql(dialect: Dialect, table: Table, index: Index, q = ""): string {
  const on = `${q}${quoteIdent(dialect, table.name)}`;
  const name = quoteIdent(dialect, index.name);
  if (dialect === "mysql") return `ALTER TABLE ${on} ADD ${mysqlIndex(index)}`;
  if (dialect === "postgresql" && index.constraint) {
    return `ALTER TABLE ${on} ADD CONSTRAINT ${name} UNIQUE ${columnList(dialect, index)}`;
  }
  const where = index.emailPartial ? ` WHERE ${quoteIdent(dialect, "email")} <> ''` : "";
  const unique = index.unique ? "UNIQUE " : "";
  return `CREATE ${unique}INDEX IF NOT EXISTS ${name} ON ${on} ${columnList(dialect, index)}${where}`;
}

/**
 * `ALTER TABLE … ADD COLUMN` for a column an existing table lacks (PostgreSQL: `IF NOT EXISTS`).
 * Only for columns that are nullable or have a default, as every column added after its table is.
 */
export function addColumnSql(dialect: Dialect, table: Table, column: Column, q = ""): string {
  const on = `${q}${quoteIdent(dialect, table.name)}`;
  const ifNot = dialect === "postgresql" ? "IF NOT EXISTS " : "";
  return `ALTER TABLE ${on} ADD COLUMN ${ifNot}${columnSql(dialect, table, column, q)}`;
}

/** The statements that create one table and its indexes, idempotently. */
export function tableStatements(dialect: Dialect, table: Table, q = ""): string[] {
  const out = [createTableSql(dialect, table, q)];
  if (dialect === "postgresql") {
    const added = table.columns.filter((c) => c.addedLater);
    if (added.length > 0) {
      // Tables created by an older release gain the columns added since, null (or defaulted) in old rows.
      const adds = added.map((c) => `ADD COLUMN IF NOT EXISTS ${columnSql(dialect, table, c, q)}`);
      out.push(`ALTER TABLE ${q}${quoteIdent(dialect, table.name)}\n  ${adds.join(",\n  ")}`);
    }
  }
  if (dialect !== "mysql") {
    const separate = table.indexes.filter((i) => dialect === "sqlite" || !i.constraint);
    for (const index of separate) out.push(createIndexSql(dialect, table, index, q));
  }
  return out;
}

/**
 * The DDL of the Gatehouse tables for `dialect`: idempotent statements (`CREATE TABLE IF NOT
 * EXISTS`, and on PostgreSQL `ADD COLUMN IF NOT EXISTS` for the columns added since a table first
 * shipped), in dependency order, without trailing semicolons. Omit `features` for every table.
 * On PostgreSQL the result equals `@gatehousejs/pg-adapter`'s `migrate()` plus its stores'.
 *
 * @example
 * ```ts
 * import Database from "better-sqlite3"
 * import { sqlStatements } from "@gatehousejs/cli/schema"
 *
 * const db = new Database("app.db")
 * for (const sql of sqlStatements("sqlite", { features: { databaseSessions: true } })) db.exec(sql)
 * ```
 */
export function sqlStatements(dialect: Dialect, options: SqlOptions = {}): string[] {
  if (!DIALECTS.includes(dialect)) {
    throw new TypeError(`sqlStatements: dialect must be one of ${DIALECTS.join(", ")}`);
  }
  const q = qualifier(dialect, options.schema);
  const head =
    dialect === "postgresql" && q ? [`CREATE SCHEMA IF NOT EXISTS ${q.slice(0, -1)}`] : [];
  const tables = tablesFor(resolveFeatures(options.features));
  return [...head, ...tables.flatMap((t) => tableStatements(dialect, t, q))];
}

/**
 * The DDL as one script: a comment header and the statements, each ending with `;`.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs"
 * import { sqlScript } from "@gatehousejs/cli/schema"
 *
 * writeFileSync("gatehouse.sql", sqlScript("mysql"))
 * ```
 */
export function sqlScript(dialect: Dialect, options: SqlOptions = {}): string {
  const notes: Record<Dialect, string> = {
    postgresql:
      "-- PostgreSQL 13 or later (gen_random_uuid()). Same layout as @gatehousejs/pg-adapter.",
    mysql:
      "-- MySQL 8 / MariaDB 10.5 or later. Times are datetime(3) in UTC; `email_key` is generated (never written).",
    sqlite:
      "-- SQLite 3.35 or later. Times are INTEGER Unix epoch milliseconds; booleans 0/1; JSON as TEXT.",
  };
  const head = [
    "-- Gatehouse tables. Generated by @gatehousejs/cli; safe to run again.",
    notes[dialect],
    "",
  ];
  return `${[...head, sqlStatements(dialect, options).join(";\n\n")].join("\n")};\n`;
}
