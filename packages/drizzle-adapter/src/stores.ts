/**
 * What the three stores share: the dialect, their tables, and the clock of the database.
 */
import { type SQL, sql } from "drizzle-orm";
import { type Dialected, type DrizzleDatabase, dialected, guarded, sqliteNow } from "./dialect.js";
import { type GatehouseTables, type TablesOption, tablesOf } from "./tables.js";

/** Options of the stores. */
export interface DrizzleStoreOptions {
  /** Tables of your own in place of the package's (see {@link TablesOption}). */
  tables?: TablesOption;
}

export interface StoreContext extends Dialected {
  t: GatehouseTables;
  /** The database's clock, to the millisecond, as an SQL expression. */
  now: SQL;
}

export function storeContext(db: DrizzleDatabase, options: DrizzleStoreOptions = {}): StoreContext {
  const d = dialected(db);
  const now =
    d.dialect === "postgresql"
      ? sql`date_trunc('milliseconds', clock_timestamp())`
      : d.dialect === "mysql"
        ? sql`utc_timestamp(3)`
        : sqliteNow;
  return { ...d, t: tablesOf(d.dialect, options.tables), now };
}

/** The store with every method throwing the driver's error rather than Drizzle's wrapper. */
export function guardedStore<S extends object>(store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store)) {
    out[name] = (...args: unknown[]) =>
      guarded(() => (method as (...a: unknown[]) => Promise<unknown>)(...args));
  }
  return out as S;
}
