/**
 * A rate-limit store kept in this process's memory, at the address of the other memory stores
 * (`@gatehousejs/core/adapters/memory`, `/revocation/memory`, `/security-log/memory`). It is also
 * exported from the package's root, where it has always been.
 * @module
 */
export {
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
} from "./lib/features/rate-limit/memory.js";
