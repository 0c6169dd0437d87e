/**
 * A security activity log store kept in this process's memory: for tests, development and
 * single-process apps. Everything is gone when the process ends.
 */
import type { SecurityEvent, SecurityEventStore } from "./options.js";

// The event types the features add (their augmentations of SecurityEventTypes).
export type {} from "../sessions/types.js";
export type {} from "./types.js";

/**
 * A {@link SecurityEventStore} in memory. Events are copied on the way in and out, so a caller
 * cannot change what is stored.
 *
 * @example
 * ```ts
 * import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
 *
 * const securityLog = { store: MemorySecurityEventStore(), retentionDays: 30 };
 * ```
 */
export function MemorySecurityEventStore(): SecurityEventStore {
  /** Per user, oldest first (events are recorded as they happen). */
  const byUser = new Map<string, SecurityEvent[]>();
  const copy = (e: SecurityEvent): SecurityEvent => ({ ...e, at: new Date(e.at) });
  return {
    async record(event) {
      const list = byUser.get(event.userId) ?? [];
      const stored = copy(event);
      // Keep the list ordered even if an event arrives with an earlier time than the last one.
      let i = list.length;
      while (i > 0 && list[i - 1]!.at.getTime() > stored.at.getTime()) i--;
      list.splice(i, 0, stored);
      byUser.set(event.userId, list);
    },
    async list(userId, { limit, before }) {
      const list = byUser.get(userId) ?? [];
      const out: SecurityEvent[] = [];
      const cutoff = before?.getTime();
      for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
        const event = list[i]!;
        if (cutoff === undefined || event.at.getTime() < cutoff) out.push(copy(event));
      }
      return out;
    },
    async prune(olderThan) {
      const cutoff = olderThan.getTime();
      for (const [userId, list] of byUser) {
        const kept = list.filter((e) => e.at.getTime() >= cutoff);
        if (kept.length === 0) byUser.delete(userId);
        else if (kept.length !== list.length) byUser.set(userId, kept);
      }
    },
  };
}
