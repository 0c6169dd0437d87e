/**
 * Which tables the adapter and the stores use: the dialect's own (`./pg.js`, `./mysql.js`,
 * `./sqlite.js`) unless the app gives some of its own.
 */
import { type Column, getTableColumns, type Table } from "drizzle-orm";
import type { Dialect } from "./dialect.js";
import * as mysql from "./mysql.js";
import * as pg from "./pg.js";
import * as sqlite from "./sqlite.js";

/** The tables Gatehouse uses, by the name they are exported under from the schema modules. */
export interface GatehouseTables {
  users: Table;
  accounts: Table;
  accountLocks: Table;
  sessions: Table;
  verificationTokens: Table;
  authenticators: Table;
  revokedSessions: Table;
  revocationEpochs: Table;
  jwtSessions: Table;
  securityEvents: Table;
  rateLimits: Table;
}

/**
 * Tables of your own for some or all of {@link GatehouseTables} (a table in another PostgreSQL
 * schema, with other SQL names, or with extra columns). A table's columns must be keyed by the
 * Gatehouse field names (`userId`, `sessionToken`, `access_token`, …); their SQL names and
 * Drizzle modes may differ. Those not given are the package's own.
 */
export type TablesOption = Partial<GatehouseTables>;

const defaults: Record<Dialect, GatehouseTables> = { postgresql: pg, mysql, sqlite };

export function tablesOf(dialect: Dialect, given: TablesOption = {}): GatehouseTables {
  return { ...defaults[dialect], ...given };
}

/** A table's columns by field name. */
export function columnsOf(table: Table): Record<string, Column> {
  return getTableColumns(table) as Record<string, Column>;
}

/**
 * The column of `table` for `field`. Throws at configuration time (never mid-request) when a
 * table the app gave lacks a field Gatehouse needs.
 */
export function column(table: Table, field: string): Column {
  const found = columnsOf(table)[field];
  if (!found) {
    throw new TypeError(`DrizzleAdapter: a table given in options.tables has no "${field}" column`);
  }
  return found;
}

/** The columns of `table` for `fields` that it has and that are not known to be missing. */
export function fieldsOf(
  table: Table,
  fields: readonly string[],
  missing: ReadonlySet<string> = new Set(),
): Record<string, Column> {
  const columns = columnsOf(table);
  const picked: Record<string, Column> = {};
  for (const field of fields) {
    const found = columns[field];
    if (found && !missing.has(field)) picked[field] = found;
  }
  return picked;
}
