/**
 * What the three stores share: the dialect, their tables, and the clock of the database.
 */
import { type SQL, sql } from "drizzle-orm";
import { type Dialected, type DrizzleDatabase, dialected, sqliteNow } from "./dialect.js";
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
