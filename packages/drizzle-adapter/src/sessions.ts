/**
 * Database sessions: the session check is one joined query on every dialect.
 */
import { randomUUID } from "node:crypto";
import type { AdapterSession, AdapterUser } from "@gatehousejs/core/adapters";
import { and, eq, ne, sql } from "drizzle-orm";
import { type Context, writable } from "./context.js";
import { insertOf, statementName } from "./dialect.js";
import {
  type Row,
  SESSION_FIELDS,
  SESSION_METADATA,
  type StoredSession,
  toSession,
  userOf,
} from "./rows.js";
import { column, columnsOf, fieldsOf } from "./tables.js";

const GENERATED: ReadonlySet<string> = new Set(["emailKey"]);

export function sessionMethods(ctx: Context) {
  const { t, db } = ctx;
  const s = {
    id: column(t.sessions, "id"),
    sessionToken: column(t.sessions, "sessionToken"),
    userId: column(t.sessions, "userId"),
    createdAt: columnsOf(t.sessions)["createdAt"],
  };
  const userId = column(t.users, "id");
  const userFields = Object.fromEntries(
    Object.entries(columnsOf(t.users)).filter(([field]) => !GENERATED.has(field)),
  );
  const fields = (missing: ReadonlySet<string>) => fieldsOf(t.sessions, SESSION_FIELDS, missing);
  const onSessions = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    ctx.tolerant(t.sessions, SESSION_METADATA, work);
  const byToken = (token: string) => eq(s.sessionToken, token);

  // The session check runs on every request: prepared once (on PostgreSQL a named statement,
  // parsed and planned once per connection), and again only if a missing column is found.
  let check: { key: string; run: (token: string) => Promise<Row[]> } | undefined;
  function sessionCheck(missing: ReadonlySet<string>) {
    const key = [...missing].sort().join(",");
    if (check?.key === key) return check.run;
    const query = db
      .select({ session: fields(missing), user: userFields })
      .from(t.sessions)
      .innerJoin(t.users, eq(userId, s.userId))
      .where(eq(s.sessionToken, sql.placeholder("token")))
      .limit(1);
    const prepared =
      ctx.dialect === "postgresql"
        ? query.prepare(statementName(query.toSQL().sql))
        : query.prepare();
    const run = async (token: string) => (await prepared.execute({ token })) as Row[];
    check = { key, run };
    return run;
  }

  return {
    createSession(session: AdapterSession): Promise<StoredSession> {
      const values: Row = { id: randomUUID() };
      for (const field of SESSION_FIELDS.slice(1)) {
        const value = (session as unknown as Row)[field];
        if (value !== undefined && value !== null) values[field] = value;
      }
      return onSessions(async (missing) => {
        // Session-record fields the table cannot hold yet are dropped: the session still works.
        const stored = writable(values, missing);
        await ctx.run(insertOf(t.sessions, stored));
        return toSession(stored);
      });
    },
    getSessionAndUser(
      sessionToken: string,
    ): Promise<{ session: StoredSession; user: AdapterUser } | null> {
      return onSessions(async (missing) => {
        // One statement: the session and its user, joined, prepared once.
        const rows = await sessionCheck(missing)(sessionToken);
        const row = rows[0] as { session: Row; user: Row } | undefined;
        if (!row) return null;
        return { session: toSession(row.session), user: userOf(row.user) };
      });
    },
    updateSession(
      patch: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
    ): Promise<StoredSession | null> {
      return onSessions(async (missing) => {
        const set: Row = {};
        for (const field of SESSION_FIELDS.slice(2)) {
          const value = (patch as unknown as Row)[field];
          if (value !== undefined) set[field] = value;
        }
        const allowed = writable(set, missing);
        const where = byToken(patch.sessionToken);
        const row = Object.keys(allowed).length
          ? await ctx.updated(t.sessions, fields(missing), allowed, where, where)
          : await ctx.first(t.sessions, fields(missing), where);
        return row ? toSession(row) : null;
      });
    },
    deleteSession(sessionToken: string): Promise<StoredSession | null> {
      return onSessions(async (missing) => {
        const row = await ctx.deleted(t.sessions, fields(missing), byToken(sessionToken));
        return row ? toSession(row) : null;
      });
    },
    listSessionsByUserId(userId: string): Promise<StoredSession[]> {
      return onSessions(async (missing) => {
        // Oldest first, sessions of unknown age last, on every dialect.
        const order =
          s.createdAt && !missing.has("createdAt")
            ? [sql`${s.createdAt} is null`, s.createdAt, s.id]
            : [s.id];
        const rows = await db
          .select(fields(missing))
          .from(t.sessions)
          .where(eq(s.userId, userId))
          .orderBy(...order);
        return rows.map(toSession);
      });
    },
    async deleteSessionsByUserId(
      userId: string,
      options: { except?: string } = {},
    ): Promise<number> {
      const where = options.except
        ? and(eq(s.userId, userId), ne(s.sessionToken, options.except))
        : eq(s.userId, userId);
      if (ctx.returning) {
        return (await db.delete(t.sessions).where(where).returning({ id: s.id })).length;
      }
      return ctx.affected(await db.delete(t.sessions).where(where));
    },
  };
}
