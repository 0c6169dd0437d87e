/**
 * What a database lacks against the model, and the statements that add it: a pure function of
 * the catalog as found, so it is tested without a database. Gatehouse's schema changes within a
 * major version are additive (docs/upgrading.md): a plan creates tables, adds columns and
 * indexes. It never drops anything unless a column is listed as retired and the caller allows
 * destructive statements.
 */
import type { Found } from "../db/introspect.js";
import {
  addColumnSql,
  createIndexSql,
  type Dialect,
  MYSQL_EMAIL_KEY,
  mysqlEmailKeySql,
  qualifier,
  quoteIdent,
  resolveFeatures,
  type SchemaFeatures,
  TABLES,
  type Table,
  tableStatements,
  tablesFor,
} from "../schema/index.js";

/** A column Gatehouse once had and no longer needs: only `--allow-destructive` drops it. */
export interface RetiredColumn {
  table: string;
  column: string;
}

/**
 * The retired columns of this major version. None today: every column ever shipped is still
 * read or written. A column listed here is dropped only with `--allow-destructive`.
 */
export const RETIRED_COLUMNS: readonly RetiredColumn[] = [];

/** One statement of a plan, with why it is there. */
export interface Step {
  sql: string;
  /** What it does, for the report (`add column accounts.passwordHash`). */
  does: string;
  /** Drops something: run only with `--allow-destructive`. */
  destructive: boolean;
}

/** What a database lacks, has in excess, and the statements to close the gap. */
export interface Plan {
  steps: Step[];
  missingTables: string[];
  missingColumns: { table: string; column: string }[];
  missingIndexes: { table: string; index: string }[];
  /** Columns of Gatehouse's tables the model does not have: kept, reported. */
  extraColumns: { table: string; column: string }[];
  /** Gaps a migration cannot close by itself (a required column without a default), with why. */
  problems: string[];
}

/** Options of {@link planMigration}. */
export interface PlanOptions {
  features?: Partial<SchemaFeatures>;
  /** PostgreSQL schema (or MySQL database) to qualify names with; none for the connection's own. */
  schema?: string;
  /** PostgreSQL: the schema does not exist yet; the plan starts by creating it. */
  createSchema?: boolean;
  /** Columns to drop when found (default {@link RETIRED_COLUMNS}). */
  retired?: readonly RetiredColumn[];
}

function expectedColumns(dialect: Dialect, table: Table): string[] {
  const names = table.columns.map((c) => c.name);
  return dialect === "mysql" && table.name === "users" ? [...names, MYSQL_EMAIL_KEY] : names;
}

/**
 * The plan that brings a database (as `found`) to the model for `features`.
 *
 * @example
 * ```ts
 * import { planMigration } from "@gatehousejs/cli"
 *
 * const plan = planMigration("sqlite", new Map(), { features: { databaseSessions: true } })
 * for (const step of plan.steps) console.log(`${step.sql};`)
 * ```
 */
export function planMigration(dialect: Dialect, found: Found, options: PlanOptions = {}): Plan {
  const q = qualifier(dialect, options.schema);
  const plan: Plan = {
    steps: [],
    missingTables: [],
    missingColumns: [],
    missingIndexes: [],
    extraColumns: [],
    problems: [],
  };
  if (dialect === "postgresql" && q && options.createSchema) {
    plan.steps.push({
      sql: `CREATE SCHEMA IF NOT EXISTS ${q.slice(0, -1)}`,
      does: "create the schema",
      destructive: false,
    });
  }
  const features = resolveFeatures(options.features);
  for (const table of tablesFor(features)) {
    const existing = found.get(table.name);
    if (!existing) {
      plan.missingTables.push(table.name);
      for (const sql of tableStatements(dialect, table, q)) {
        plan.steps.push({ sql, does: `create ${table.name}`, destructive: false });
      }
      continue;
    }
    for (const column of table.columns) {
      if (existing.columns.has(column.name)) continue;
      plan.missingColumns.push({ table: table.name, column: column.name });
      const pk = table.primaryKey.includes(column.name);
      if ((!column.nullable && column.default === undefined) || pk) {
        plan.problems.push(
          `${table.name}.${column.name} is missing and required: this table was not made by Gatehouse; add the column by hand`,
        );
        continue;
      }
      plan.steps.push({
        sql: addColumnSql(dialect, table, column, q),
        does: `add column ${table.name}.${column.name}`,
        destructive: false,
      });
    }
    if (dialect === "mysql" && table.name === "users" && !existing.columns.has(MYSQL_EMAIL_KEY)) {
      plan.missingColumns.push({ table: "users", column: MYSQL_EMAIL_KEY });
      plan.steps.push({
        sql: `ALTER TABLE ${q}${quoteIdent(dialect, "users")} ADD COLUMN ${mysqlEmailKeySql()}`,
        does: `add column users.${MYSQL_EMAIL_KEY}`,
        destructive: false,
      });
    }
    for (const index of table.indexes) {
      if (existing.indexes.has(index.name)) continue;
      plan.missingIndexes.push({ table: table.name, index: index.name });
      plan.steps.push({
        sql: createIndexSql(dialect, table, index, q),
        does: `create index ${index.name}`,
        destructive: false,
      });
    }
    // Columns of features the app does not use are not extra: another configuration uses them.
    const full = TABLES.find((t) => t.name === table.name) ?? table;
    const expected = new Set(expectedColumns(dialect, full));
    const retired = options.retired ?? RETIRED_COLUMNS;
    for (const column of existing.columns.keys()) {
      if (expected.has(column)) continue;
      if (retired.some((r) => r.table === table.name && r.column === column)) {
        plan.steps.push({
          sql: `ALTER TABLE ${q}${quoteIdent(dialect, table.name)} DROP COLUMN ${quoteIdent(dialect, column)}`,
          does: `drop retired column ${table.name}.${column}`,
          destructive: true,
        });
      } else {
        plan.extraColumns.push({ table: table.name, column });
      }
    }
  }
  return plan;
}
