/**
 * The security activity log through Prisma: one table of its own, `security_events`, read newest
 * first through its index on (user, time).
 */
import type { SecurityEvent, SecurityEventStore, SecurityEventType } from "@gatehousejs/core/types";
import { type Db, isUniqueViolation, model, type PrismaClientLike, type Row } from "./client.js";
import { date, textOrNull } from "./rows.js";

/** The model {@link PrismaSecurityEventStore} uses, by its client property name. */
export type PrismaSecurityEventModels = "securityEvent";

/** What {@link PrismaSecurityEventStore} returns: the store contract. */
export interface PrismaSecurityEventStoreMethods extends SecurityEventStore {}

const nullableBool = (value: unknown): boolean | null =>
  value === null || value === undefined ? null : value === true || Number(value) === 1;

function toEvent(row: Row): SecurityEvent {
  return {
    id: String(row.id),
    userId: String(row.userId),
    type: String(row.type) as SecurityEventType,
    at: date(row.at),
    provider: textOrNull(row.provider),
    providerType: textOrNull(row.providerType),
    newClient: nullableBool(row.newClient),
    client: textOrNull(row.client),
    ip: textOrNull(row.ip),
    sessionId: textOrNull(row.sessionId),
    reason: textOrNull(row.reason),
  };
}

/**
 * A {@link SecurityEventStore} through Prisma, for `securityLog.store`. The client's schema needs
 * the model `SecurityEvent` of this package's fragment. Recording an event whose id is already
 * stored does nothing.
 *
 * @example
 * ```ts
 * import { PrismaSecurityEventStore } from "@gatehousejs/prisma-adapter";
 * import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
 * import { PrismaClient } from "./generated/prisma/client.js";
 *
 * const prisma = new PrismaClient({
 *   adapter: new PrismaBetterSqlite3(
 *     { url: "file:./auth.db" },
 *     { timestampFormat: "unixepoch-ms" },
 *   ),
 * });
 * const securityLog = { store: PrismaSecurityEventStore(prisma), retentionDays: 90 };
 * ```
 */
export function PrismaSecurityEventStore(
  prisma: PrismaClientLike<PrismaSecurityEventModels>,
): PrismaSecurityEventStoreMethods {
  const events = model(prisma as unknown as Db, "securityEvent");
  return {
    async record(event) {
      try {
        await events.create({
          data: {
            id: event.id,
            userId: event.userId,
            type: event.type,
            at: event.at,
            provider: event.provider ?? null,
            providerType: event.providerType ?? null,
            newClient: event.newClient ?? null,
            client: event.client ?? null,
            ip: event.ip ?? null,
            sessionId: event.sessionId ?? null,
            reason: event.reason ?? null,
          },
        });
      } catch (error) {
        // The same event recorded twice (a retried write) is kept once.
        if (!isUniqueViolation(error)) throw error;
      }
    },
    async list(userId, { limit, before }) {
      const rows = await events.findMany({
        where: before ? { userId, at: { lt: before } } : { userId },
        orderBy: [{ at: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map(toEvent);
    },
    async prune(olderThan) {
      await events.deleteMany({ where: { at: { lt: olderThan } } });
    },
  };
}
