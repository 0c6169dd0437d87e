/**
 * The security activity log: one table of its own, `security_events`, read newest first through
 * its index on (user, time).
 */
import type { SecurityEvent, SecurityEventStore, SecurityEventType } from "@gatehousejs/core/types";
import { and, desc, eq, lt } from "drizzle-orm";
import type { DrizzleDatabase } from "./dialect.js";
import { date, type Row, textOrNull } from "./rows.js";
import { type DrizzleStoreOptions, guardedStore, storeContext } from "./stores.js";
import { column, fieldsOf } from "./tables.js";

const FIELDS = [
  "id",
  "userId",
  "type",
  "at",
  "provider",
  "providerType",
  "newClient",
  "client",
  "ip",
  "sessionId",
  "reason",
] as const;

function toEvent(row: Row): SecurityEvent {
  const newClient = row.newClient;
  return {
    id: String(row.id),
    userId: String(row.userId),
    type: String(row.type) as SecurityEventType,
    at: date(row.at),
    provider: textOrNull(row.provider),
    providerType: textOrNull(row.providerType),
    newClient:
      newClient === null || newClient === undefined
        ? null
        : newClient === true || newClient === 1 || newClient === "1",
    client: textOrNull(row.client),
    ip: textOrNull(row.ip),
    sessionId: textOrNull(row.sessionId),
    reason: textOrNull(row.reason),
  };
}

/**
 * A {@link SecurityEventStore} over a Drizzle database, for `securityLog.store`. Create its
 * table with `npx gatehouse migrate` (feature `securityLog`).
 *
 * @example
 * ```ts
 * import { DrizzleSecurityEventStore } from "@gatehousejs/drizzle-adapter";
 * import { drizzle } from "drizzle-orm/node-postgres";
 *
 * const db = drizzle(process.env.DATABASE_URL ?? "");
 * const securityLog = { store: DrizzleSecurityEventStore(db), retentionDays: 90 };
 * ```
 */
export function DrizzleSecurityEventStore(
  database: DrizzleDatabase,
  options: DrizzleStoreOptions = {},
): SecurityEventStore {
  const ctx = storeContext(database, options);
  const { db, t } = ctx;
  const table = t.securityEvents;
  const c = { id: column(table, "id"), userId: column(table, "userId"), at: column(table, "at") };
  const fields = fieldsOf(table, FIELDS);
  return guardedStore<SecurityEventStore>({
    async record(event) {
      const values = Object.fromEntries(
        FIELDS.map((f) => [f, (event as unknown as Row)[f] ?? null]),
      );
      // Recording one event twice (a retry) keeps one row.
      await (ctx.dialect === "mysql"
        ? db
            .insert(table)
            .values(values)
            .onDuplicateKeyUpdate({ set: { id: c.id } })
        : db.insert(table).values(values).onConflictDoNothing({ target: c.id }));
    },
    async list(userId, { limit, before }) {
      const rows = await db
        .select(fields)
        .from(table)
        .where(before ? and(eq(c.userId, userId), lt(c.at, before)) : eq(c.userId, userId))
        .orderBy(desc(c.at), desc(c.id))
        .limit(limit);
      return rows.map(toEvent);
    },
    async prune(olderThan) {
      await db.delete(table).where(lt(c.at, olderThan));
    },
  });
}
