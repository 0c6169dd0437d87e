/**
 * The database-session methods. The session check is one raw join (Prisma would make it two
 * queries, or one only with the `relationJoins` preview and never on SQLite); its column list
 * leaves out the session-record columns an older schema lacks.
 */
import type { AdapterSession, AdapterUser } from "@gatehousejs/core/adapters";
import {
  type Db,
  given,
  model,
  orNull,
  type PrismaDialect,
  placeholder,
  quoter,
  type Row,
} from "./client.js";
import { SESSION_METADATA, type StoredSession, toSession, toUser } from "./rows.js";
import { omitted, type Tolerance } from "./tolerance.js";

/** The user columns every read of a user selects. */
export const USER_SELECT = { id: true, name: true, email: true, emailVerified: true, image: true };

const SESSION_FIELDS = ["userId", "expires", ...SESSION_METADATA] as const;

/** The session methods of {@link PrismaAdapter}. */
export interface PrismaSessionMethods {
  createSession(session: AdapterSession): Promise<StoredSession>;
  getSessionAndUser(
    sessionToken: string,
  ): Promise<{ session: StoredSession; user: AdapterUser } | null>;
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Promise<StoredSession | null>;
  deleteSession(sessionToken: string): Promise<StoredSession | null>;
  listSessionsByUserId(userId: string): Promise<StoredSession[]>;
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
}

export function sessionMethods(
  db: Db,
  dialect: PrismaDialect,
  table: (name: string) => string,
  tolerant: Tolerance,
): PrismaSessionMethods {
  const sessions = model(db, "session");
  const q = quoter(dialect);
  const onSessions = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    tolerant.run("session", work);

  // Session and user columns overlap only in "id": the session's is read as "sessionId".
  const userColumns = Object.keys(USER_SELECT)
    .map((c) => `u.${q(c)}`)
    .join(", ");
  const checkFor = (missing: ReadonlySet<string>) => {
    const sessionColumns = ["sessionToken", "userId", "expires", ...SESSION_METADATA]
      .filter((c) => !missing.has(c))
      .map((c) => `s.${q(c)}`)
      .join(", ");
    return `SELECT s.${q("id")} AS ${q("sessionId")}, ${sessionColumns}, ${userColumns}
FROM ${table("sessions")} s JOIN ${table("users")} u ON u.${q("id")} = s.${q("userId")}
WHERE s.${q("sessionToken")} = ${placeholder(dialect, 1)}`;
  };
  // The statement for the fields known missing, written again only when that set changes.
  let check = { key: "", sql: checkFor(new Set()) };
  const checkSql = (missing: ReadonlySet<string>) => {
    const key = [...missing].sort().join(",");
    if (key !== check.key) check = { key, sql: checkFor(missing) };
    return check.sql;
  };

  return {
    createSession(session) {
      const data: Row = { id: crypto.randomUUID(), sessionToken: session.sessionToken };
      for (const field of SESSION_FIELDS) data[field] = session[field] ?? null;
      return onSessions(async (missing) =>
        toSession(
          await sessions.create({
            data: tolerant.writable("session", data, missing),
            ...omitted(missing),
          }),
        ),
      );
    },
    getSessionAndUser(sessionToken) {
      return onSessions(async (missing) => {
        const rows = await db.$queryRawUnsafe(checkSql(missing), sessionToken);
        const row = rows[0];
        if (!row) return null;
        return { session: toSession({ ...row, id: row.sessionId }), user: toUser(row) };
      });
    },
    updateSession(patch) {
      const where = { sessionToken: patch.sessionToken };
      return onSessions(async (missing) => {
        const data = tolerant.writable("session", given(patch, SESSION_FIELDS), missing);
        const omit = omitted(missing);
        const row =
          Object.keys(data).length > 0
            ? await orNull(sessions.update({ where, data, ...omit }))
            : await sessions.findUnique({ where, ...omit });
        return row ? toSession(row) : null;
      });
    },
    deleteSession(sessionToken) {
      return onSessions(async (missing) => {
        const row = await orNull(sessions.delete({ where: { sessionToken }, ...omitted(missing) }));
        return row ? toSession(row) : null;
      });
    },
    async listSessionsByUserId(userId) {
      const rows = await onSessions(async (missing) =>
        (await sessions.findMany({ where: { userId }, ...omitted(missing) })).map(toSession),
      );
      // Oldest first, unknown creation times last; sorted here, as MySQL has no NULLS LAST.
      const created = (s: StoredSession) => s.createdAt?.getTime() ?? Number.POSITIVE_INFINITY;
      return rows.sort((a, b) => created(a) - created(b) || (a.id < b.id ? -1 : 1));
    },
    async deleteSessionsByUserId(userId, deleteOptions = {}) {
      const except = deleteOptions.except;
      const where = except === undefined ? { userId } : { userId, NOT: { sessionToken: except } };
      return (await sessions.deleteMany({ where })).count;
    },
  };
}
