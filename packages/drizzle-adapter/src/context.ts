/**
 * What every part of the adapter shares: the dialect, the tables, the statements that differ by
 * dialect (a row deleted or updated and returned), and the tolerance of an older schema.
 */
import { type Column, getTableName, type SQL, type Table } from "drizzle-orm";
import type { Db, Dialected } from "./dialect.js";
import { guarded, missingColumn } from "./dialect.js";
import type { Row } from "./rows.js";
import { columnsOf, type GatehouseTables } from "./tables.js";

/** Where the adapter's warnings go (a missing optional column). Default: `console`. */
export interface AdapterLogger {
  warn(message: string): void;
}

export interface Context extends Dialected {
  t: GatehouseTables;
  /** The first row `fields` of `table` where `where`, or `undefined`. */
  first(
    table: Table,
    fields: Record<string, Column>,
    where: SQL | undefined,
  ): Promise<Row | undefined>;
  /** Deletes the row where `where` and returns it (`undefined`: there was none). */
  deleted(
    table: Table,
    fields: Record<string, Column>,
    where: SQL | undefined,
  ): Promise<Row | undefined>;
  /**
   * Updates the row where `where` with `set` and returns it as it is then (`undefined`: no row
   * matched). `key` finds the row again on MySQL, where `where` may no longer match it.
   */
  updated(
    table: Table,
    fields: Record<string, Column>,
    set: Row,
    where: SQL | undefined,
    key: SQL | undefined,
  ): Promise<Row | undefined>;
  /**
   * Runs `work` with the fields of `table` known to be missing from the database. When the
   * database says that one of `optional` is missing, it is remembered (a warning is logged, once)
   * and `work` runs again without it: an older schema never blocks a sign-in.
   */
  tolerant<T>(
    table: Table,
    optional: readonly string[],
    work: (missing: ReadonlySet<string>) => Promise<T>,
  ): Promise<T>;
}

export function createContext(
  d: Dialected,
  t: GatehouseTables,
  logger: AdapterLogger = console,
): Context {
  const gone = new Map<Table, Set<string>>();
  const missingOf = (table: Table) => {
    const known = gone.get(table) ?? new Set<string>();
    gone.set(table, known);
    return known;
  };
  const first = async (
    table: Table,
    fields: Record<string, Column>,
    where: SQL | undefined,
    on: Db = d.db,
  ) => (await on.select(fields).from(table).where(where).limit(1))[0];
  return {
    ...d,
    t,
    first: (table, fields, where) => first(table, fields, where),
    async deleted(table, fields, where) {
      if (d.returning) return (await d.db.delete(table).where(where).returning(fields))[0];
      // MySQL: of concurrent deletes of one row, the one that removed it returns it.
      const row = await first(table, fields, where);
      if (!row) return undefined;
      return d.affected(await d.db.delete(table).where(where)) > 0 ? row : undefined;
    },
    async updated(table, fields, set, where, key) {
      if (d.returning) return (await d.db.update(table).set(set).where(where).returning(fields))[0];
      // The connection reports the rows matched (mysql2 sets CLIENT_FOUND_ROWS), not changed.
      if (d.affected(await d.db.update(table).set(set).where(where)) === 0) return undefined;
      return first(table, fields, key);
    },
    async tolerant(table, optional, work) {
      const missing = missingOf(table);
      for (;;) {
        try {
          return await guarded(() => work(missing));
        } catch (error) {
          const columns = columnsOf(table);
          const fields = optional.filter((f) => columns[f] && !missing.has(f));
          const name = missingColumn(
            error,
            fields.map((f) => columns[f]!.name),
          );
          const field = fields.find((f) => columns[f]!.name === name);
          if (!field) throw error;
          missing.add(field);
          logger.warn(
            `[gatehouse] DrizzleAdapter: the table "${getTableName(table)}" has no column "${name}"; continuing without it (run \`npx gatehouse migrate\` to add it)`,
          );
        }
      }
    },
  };
}

/**
 * `values` without the fields known to be missing. A missing field in `needed` that holds a
 * value cannot be dropped (a password hash, say): that throws, naming the column only.
 */
export function writable(
  values: Row,
  missing: ReadonlySet<string>,
  needed: readonly string[] = [],
): Row {
  const out: Row = {};
  for (const [field, value] of Object.entries(values)) {
    if (!missing.has(field)) {
      out[field] = value;
    } else if (needed.includes(field) && value !== null && value !== undefined) {
      throw new Error(
        `DrizzleAdapter: the database has no "${field}" column to store this in; run \`npx gatehouse migrate\``,
      );
    }
  }
  return out;
}
