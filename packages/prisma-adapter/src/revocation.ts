/**
 * The revocation store for JWT sessions through Prisma: three tables of its own
 * (`revoked_sessions`, `revocation_epochs`, `jwt_sessions`); a check is one SQL query.
 */
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import {
  type Db,
  type Delegate,
  dialectOf,
  isUniqueViolation,
  model,
  type PrismaAdapterOptions,
  type PrismaClientLike,
  placeholder,
  quoter,
  type Row,
  tableNamer,
} from "./client.js";
import { bool, date, dateOrNull, textOrNull } from "./rows.js";
import { omitted, tolerance } from "./tolerance.js";

/** The models {@link PrismaRevocationStore} uses, by their client property names. */
export type PrismaRevocationModels = "revokedSession" | "revocationEpoch" | "jwtSession";

/** What {@link PrismaRevocationStore} returns: the whole store contract and pruning. */
export interface PrismaRevocationStoreMethods extends Required<RevocationStore> {
  /**
   * Deletes the entries of sessions that have expired. Expired entries are never consulted, so
   * this only reclaims space: run it now and then (a daily job).
   */
  prune(): Promise<void>;
}

const WHO = "PrismaRevocationStore";

/** The session id core gives a JWT without a `sid`: never the exception of an epoch. */
const LEGACY_SESSION_ID = "legacy";

const RECORD_FIELDS = [
  "expires",
  "createdAt",
  "lastSeenAt",
  "provider",
  "providerType",
  "client",
  "ip",
  "providerSid",
] as const;

function toRecord(row: Row): RevocationSessionRecord {
  return {
    userId: String(row.userId),
    sessionId: String(row.sessionId),
    expires: date(row.expires),
    createdAt: dateOrNull(row.createdAt),
    lastSeenAt: dateOrNull(row.lastSeenAt),
    provider: textOrNull(row.provider),
    providerType: textOrNull(row.providerType),
    client: textOrNull(row.client),
    ip: textOrNull(row.ip),
    // Left out when none was recorded, as records from before federated logout have none.
    ...(row.providerSid === null || row.providerSid === undefined
      ? {}
      : { providerSid: String(row.providerSid) }),
  };
}

/**
 * Raises a row's `expires` (and `at`) to the values given, creating the row when there is none:
 * conditional updates only ever move a value forward, so racing calls keep the latest of each.
 */
async function raiseOrCreate(
  rows: Delegate,
  where: Row,
  raise: Row,
  create: Row,
  always: Row = {},
): Promise<void> {
  const apply = async () => {
    let found = false;
    if (Object.keys(always).length > 0) {
      found = (await rows.updateMany({ where, data: always })).count > 0;
    }
    for (const [field, value] of Object.entries(raise)) {
      const { count } = await rows.updateMany({
        where: { ...where, [field]: { lt: value } },
        data: { [field]: value },
      });
      found ||= count > 0;
    }
    return found;
  };
  if (await apply()) return;
  // Nothing was raised: there was no row, or it held values as late. A row another call created
  // since is raised now (rows are never deleted but expired ones, by prune).
  if (await rows.findFirst({ where })) {
    await apply();
    return;
  }
  try {
    await rows.create({ data: create });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Created meanwhile by another call: raise it to this one's values.
    await apply();
  }
}

/**
 * A {@link RevocationStore} through Prisma, for `session.revocation.store`: revocations are
 * shared by every process that uses the database and survive restarts. The client's schema needs
 * the models `RevokedSession`, `RevocationEpoch` and `JwtSession` of this package's fragment.
 *
 * `check` is one SQL query over two primary keys (the database's clock on PostgreSQL and MySQL,
 * this process's on SQLite); entries are ignored once the sessions they concern have expired, and
 * {@link PrismaRevocationStoreMethods.prune} deletes them.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { PrismaRevocationStore } from "@gatehousejs/prisma-adapter";
 * import { PrismaPg } from "@prisma/adapter-pg";
 * import { PrismaClient } from "./generated/prisma/client.js";
 *
 * const prisma = new PrismaClient({
 *   adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }),
 * });
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   session: { strategy: "jwt", revocation: { store: PrismaRevocationStore(prisma) } },
 * } satisfies AuthConfig;
 * ```
 */
export function PrismaRevocationStore(
  prisma: PrismaClientLike<PrismaRevocationModels>,
  options: PrismaAdapterOptions = {},
): PrismaRevocationStoreMethods {
  const dialect = dialectOf(prisma, options.dialect, WHO);
  const table = tableNamer(dialect, options.schema, WHO);
  const q = quoter(dialect);
  const p = (n: number) => placeholder(dialect, n);
  const db = prisma as unknown as Db;
  const revoked = model(db, "revokedSession");
  const epochs = model(db, "revocationEpoch");
  const records = model(db, "jwtSession");
  // `jwt_sessions.providerSid` may be missing (an older schema): recorded sessions then carry
  // none, and a back-channel logout by `sid` ends all of the user's sessions instead.
  const tolerant = tolerance(WHO, options.logger);
  const onRecords = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    tolerant.run("jwtSession", work);

  // Revoked by id, or issued at or before the user's epoch and not its exception. Both lookups
  // are primary-key probes; an expired entry counts for nothing.
  const now = dialect === "postgresql" ? "now()" : dialect === "mysql" ? "UTC_TIMESTAMP(3)" : p(0);
  const check =
    dialect === "postgresql"
      ? `SELECT (EXISTS (
  SELECT 1 FROM ${table("revoked_sessions")} WHERE "userId" = $1 AND "sessionId" = $2 AND "expires" > now()
) OR EXISTS (
  SELECT 1 FROM ${table("revocation_epochs")} WHERE "userId" = $1 AND "at" >= $3
    AND ("except" IS DISTINCT FROM $2 OR $2 = '${LEGACY_SESSION_ID}') AND "expires" > now()
)) AS "revoked"`
      : `SELECT (EXISTS (
  SELECT 1 FROM ${table("revoked_sessions")} WHERE ${q("userId")} = ? AND ${q("sessionId")} = ? AND ${q("expires")} > ${now}
) OR EXISTS (
  SELECT 1 FROM ${table("revocation_epochs")} WHERE ${q("userId")} = ? AND ${q("at")} >= ?
    AND (${dialect === "mysql" ? `NOT (${q("except")} <=> ?)` : `${q("except")} IS NOT ?`} OR ? = '${LEGACY_SESSION_ID}')
    AND ${q("expires")} > ${now}
)) AS ${q("revoked")}`;

  const checkParams = (userId: string, sessionId: string, issuedAt: number): unknown[] => {
    const at = Math.ceil(issuedAt);
    if (dialect === "postgresql") return [userId, sessionId, at];
    const ms = Date.now();
    return dialect === "mysql"
      ? [userId, sessionId, userId, at, sessionId, sessionId]
      : [userId, sessionId, ms, userId, at, sessionId, sessionId, ms];
  };

  return {
    async check({ userId, sessionId, issuedAt }) {
      const rows = await db.$queryRawUnsafe(check, ...checkParams(userId, sessionId, issuedAt));
      return bool(rows[0]?.revoked);
    },
    async revokeSession({ userId, sessionId, expires }) {
      await records.deleteMany({ where: { userId, sessionId } });
      await raiseOrCreate(
        revoked,
        { userId, sessionId },
        { expires },
        { userId, sessionId, expires },
      );
    },
    async revokeUser({ userId, at, except, expires }) {
      const exception = except ?? null;
      await records.deleteMany({
        where: exception === null ? { userId } : { userId, NOT: { sessionId: exception } },
      });
      // The epoch only moves forward; the exception is the latest revocation's.
      const epoch = BigInt(Math.floor(at));
      await raiseOrCreate(
        epochs,
        { userId },
        { at: epoch, expires },
        { userId, at: epoch, except: exception, expires },
        { except: exception },
      );
    },
    async recordSession(record) {
      if (record.expires.valueOf() <= Date.now()) return;
      const { userId, sessionId } = record;
      const create: Row = { userId, sessionId };
      const update: Row = {};
      for (const field of RECORD_FIELDS) {
        create[field] = record[field] ?? null;
        // A field left undefined (the provider, when a re-issued token is recorded) keeps its value.
        if (record[field] !== undefined) update[field] = record[field];
      }
      const where = { userId, sessionId };
      await onRecords(async (missing) => {
        const changes = tolerant.writable("jwtSession", update, missing);
        if ((await records.updateMany({ where, data: changes })).count > 0) return;
        try {
          await records.create({
            data: tolerant.writable("jwtSession", create, missing),
            select: { userId: true },
          });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          await records.updateMany({ where, data: changes });
        }
      });
    },
    async listSessions(userId) {
      const now = new Date();
      const [listed, revokedIds, epoch] = await Promise.all([
        onRecords((missing) =>
          records.findMany({ where: { userId, expires: { gt: now } }, ...omitted(missing) }),
        ),
        revoked.findMany({
          where: { userId, expires: { gt: now } },
          select: { sessionId: true },
        }),
        epochs.findFirst({ where: { userId, expires: { gt: now } } }),
      ]);
      const gone = new Set(revokedIds.map((r) => String(r.sessionId)));
      const at = epoch ? Number(epoch.at) : null;
      const except = epoch ? textOrNull(epoch.except) : null;
      const kept = listed.map(toRecord).filter((r) => {
        if (gone.has(r.sessionId)) return false;
        if (at === null || r.sessionId === except) return true;
        // Issued after the epoch (a whole second later: `at` is in seconds) survives it.
        return Math.floor((r.createdAt?.getTime() ?? 0) / 1000) > at;
      });
      const created = (r: RevocationSessionRecord) =>
        r.createdAt?.getTime() ?? Number.POSITIVE_INFINITY;
      return kept.sort((a, b) => created(a) - created(b) || (a.sessionId < b.sessionId ? -1 : 1));
    },
    async prune() {
      const where = { expires: { lte: new Date() } };
      await revoked.deleteMany({ where });
      await epochs.deleteMany({ where });
      await records.deleteMany({ where });
    },
  };
}
