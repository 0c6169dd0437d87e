/**
 * A Gatehouse adapter for Drizzle ORM on PostgreSQL, MySQL/MariaDB and SQLite, with the
 * revocation, security-log and rate-limit stores. The tables are in the subpath modules
 * `@gatehousejs/drizzle-adapter/pg`, `/mysql` and `/sqlite`.
 * @module
 */
export {
  DrizzleAdapter,
  type DrizzleAdapterMethods,
  type DrizzleAdapterOptions,
} from "./adapter.js";
export type { AdapterLogger } from "./context.js";
export type { Dialect, DrizzleDatabase } from "./dialect.js";
export {
  DrizzleRateLimitStore,
  type DrizzleRateLimitStoreMethods,
} from "./rate-limit.js";
export { DrizzleRevocationStore, type DrizzleRevocationStoreMethods } from "./revocation.js";
export type { StoredSession } from "./rows.js";
export { DrizzleSecurityEventStore } from "./security-log.js";
export type { DrizzleStoreOptions } from "./stores.js";
export type { GatehouseTables, TablesOption } from "./tables.js";
