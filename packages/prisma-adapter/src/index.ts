/**
 * A Gatehouse adapter for Prisma 7 (PostgreSQL, MySQL/MariaDB, SQLite), and the revocation,
 * security-log and rate-limit stores on the same client. The models are in `prisma/<dialect>.prisma`.
 * @module
 */
export {
  PrismaAdapter,
  type PrismaAdapterClient,
  type PrismaAdapterMethods,
  type PrismaAdapterModels,
} from "./adapter.js";
export type {
  PrismaAdapterLogger,
  PrismaAdapterOptions,
  PrismaClientLike,
  PrismaDialect,
  PrismaModelDelegate,
  PrismaRawClient,
} from "./client.js";
export {
  type PrismaRateLimitModels,
  PrismaRateLimitStore,
  type PrismaRateLimitStoreMethods,
} from "./rate-limit.js";
export {
  type PrismaRevocationModels,
  PrismaRevocationStore,
  type PrismaRevocationStoreMethods,
} from "./revocation.js";
export type { StoredSession } from "./rows.js";
export {
  type PrismaSecurityEventModels,
  PrismaSecurityEventStore,
  type PrismaSecurityEventStoreMethods,
} from "./security-log.js";
export type { PrismaVerificationTokenMethods } from "./verification-tokens.js";
