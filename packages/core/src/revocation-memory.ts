/**
 * A revocation store that keeps everything in this process's memory: for tests, prototypes and
 * single-process servers. Revocations do not survive a restart and are not shared between
 * processes; use the Redis or PostgreSQL store for that.
 * @module
 */
export {
  type InMemoryRevocationStore,
  MemoryRevocationStore,
} from "./lib/features/sessions/memory.js";
