/**
 * A security activity log store kept in this process's memory: for tests, development and
 * single-process apps. Everything is gone when the process ends.
 * @module
 */
export { MemorySecurityEventStore } from "./lib/features/security-log/memory.js";
