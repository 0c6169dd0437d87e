/**
 * A Gatehouse adapter for Prisma 7 (PostgreSQL, MySQL/MariaDB, SQLite), and the revocation,
 * security-log and rate-limit stores on the same client. The models are in `prisma/<dialect>.prisma`.
 * @module
 */
export { PrismaAdapter, type PrismaAdapterMethods, type PrismaAdapterModels } from "./adapter.js";
export type {
  PrismaAdapterOptions,
  PrismaClientLike,
  PrismaDialect,
  PrismaModelDelegate,
  PrismaRawClient,
} from "./client.js";
export {
  PrismaRateLimitStore,
  type PrismaRateLimitModels,
  type PrismaRateLimitStoreMethods,
} from "./rate-limit.js";
export {
  PrismaRevocationStore,
  type PrismaRevocationModels,
  type PrismaRevocationStoreMethods,
} from "./revocation.js";
export type { StoredSession } from "./rows.js";
export {
  PrismaSecurityEventStore,
  type PrismaSecurityEventModels,
  type PrismaSecurityEventStoreMethods,
} from "./security-log.js";
export type { PrismaVerificationTokenMethods } from "./verification-tokens.js";
