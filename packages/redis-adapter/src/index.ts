/**
 * A Gatehouse adapter for Redis: users, accounts, sessions, verification tokens and WebAuthn
 * authenticators, through an ioredis or node-redis client.
 * @module
 */
export { RedisAdapter, type RedisAdapterOptions } from "./adapter.js";
export type { IORedisClientLike, NodeRedisClientLike, RedisClientLike } from "./client.js";
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from "./rate-limit.js";
export { RedisRevocationStore, type RedisRevocationStoreOptions } from "./revocation.js";
export { RedisSecurityEventStore, type RedisSecurityEventStoreOptions } from "./security-log.js";
export type { RedisVerificationTokenMethods } from "./verification-tokens.js";
