/**
 * A Gatehouse adapter for PostgreSQL: give it a `pg` Pool, a `pg` Client or PGlite.
 * @module
 */
export { PostgresAdapter, type PostgresAdapterMethods, type StoredSession } from "./adapter.js";
export type { PostgresOptions, Queryable } from "./client.js";
export { PostgresRateLimitStore, type PostgresRateLimitStoreMethods } from "./rate-limit.js";
export { PostgresRevocationStore, type PostgresRevocationStoreMethods } from "./revocation.js";
export { createSchemaSql, migrate, schemaSql } from "./schema.js";
export {
  PostgresSecurityEventStore,
  type PostgresSecurityEventStoreMethods,
} from "./security-log.js";
export type { PostgresVerificationTokenMethods } from "./verification-tokens.js";
