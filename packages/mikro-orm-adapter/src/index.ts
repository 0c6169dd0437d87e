/**
 * A Gatehouse adapter for MikroORM, with the Gatehouse tables as MikroORM entities.
 * @module
 */
export {
  MikroOrmAdapter,
  type MikroOrmAdapterEntities,
  type MikroOrmAdapterMethods,
  type MikroOrmAdapterOptions,
  type MikroOrmLike,
} from "./adapter.js";
export {
  Account,
  AccountLock,
  Authenticator,
  defineGatehouseEntities,
  type GatehouseEntities,
  type GatehouseEntityExtension,
  type GatehouseEntityExtensions,
  gatehouseEntities,
  Session,
  User,
  VerificationToken,
} from "./entities.js";
export type { MikroOrmVerificationTokenMethods } from "./verification-tokens.js";
