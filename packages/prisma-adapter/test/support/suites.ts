/**
 * Every suite of `@gatehousejs/adapter-test` on one opened database, and the checks that are the
 * Prisma adapter's own: a session check is one query, and what is stored is in the canonical
 * format (so pg-adapter, Drizzle and the CLI read the same rows).
 */
import {
  runAdapterTests,
  runRateLimitStoreTests,
  runRevocationStoreTests,
  runSecurityEventStoreTests,
} from "@gatehousejs/adapter-test";
import { afterAll, describe, expect, test } from "vitest";
import {
  PrismaAdapter,
  type PrismaAdapterModels,
  type PrismaClientLike,
  PrismaRateLimitStore,
  PrismaRevocationStore,
  PrismaSecurityEventStore,
} from "../../src/index.js";
import type { Opened } from "./databases.js";
import { storedDate } from "./readers.js";

/** Registers every suite on `db` (already open) under `name`, and closes `db` afterwards. */
export function prismaSuites(name: string, db: Opened): void {
  const client = db.prisma as unknown as PrismaClientLike<PrismaAdapterModels>;
  const adapter = PrismaAdapter(client, db.options);

  afterAll(() => db.close());

  runAdapterTests({ name, adapter, db: db.readers });
  runRevocationStoreTests({ name, store: PrismaRevocationStore(client as never, db.options) });
  runSecurityEventStoreTests({ name, store: PrismaSecurityEventStore(client as never) });
  runRateLimitStoreTests({ name, store: PrismaRateLimitStore(client as never, db.options) });

  describe(`Prisma adapter's own checks: ${name}`, () => {
    const newUser = () =>
      adapter.createUser({
        id: crypto.randomUUID(),
        email: `${crypto.randomUUID()}@example.com`,
        emailVerified: null,
      });

    test("a database session check (getSessionAndUser) is ONE query", async () => {
      const user = await newUser();
      const sessionToken = crypto.randomUUID();
      await adapter.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + 60_000),
      });
      db.queries.length = 0;
      const found = await adapter.getSessionAndUser(sessionToken);
      expect(found?.user.id).toBe(user.id);
      expect(found?.session.sessionToken).toBe(sessionToken);
      expect(db.queries, "the queries of one session check").toHaveLength(1);
      expect(db.queries[0]).toMatch(/\bJOIN\b/);

      db.queries.length = 0;
      expect(await adapter.getSessionAndUser(crypto.randomUUID())).toBeNull();
      expect(db.queries, "the queries of a check of an unknown token").toHaveLength(1);

      // The count is real: Prisma's own include of the user (without the relationJoins preview)
      // takes two queries on this very client, and the log shows both.
      db.queries.length = 0;
      await db.prisma.session.findUnique({ where: { sessionToken }, include: { user: true } });
      expect(db.queries.length, "Prisma's include, counted the same way").toBe(2);
    });

    test("with every column present nothing is warned, and a check stays one query", async () => {
      const warnings: string[] = [];
      const watched = PrismaAdapter(client, {
        ...db.options,
        logger: { warn: (message) => void warnings.push(message) },
      });
      const user = await watched.createUser({
        id: crypto.randomUUID(),
        email: `${crypto.randomUUID()}@example.com`,
        emailVerified: null,
      });
      const account = await watched.linkAccount({
        userId: user.id,
        type: "oauth",
        provider: "gatehouse-test",
        providerAccountId: crypto.randomUUID(),
        error: "RefreshTokenError",
      } as never);
      expect(await watched.getAccount(account.providerAccountId, account.provider)).toEqual(
        account,
      );
      const sessionToken = crypto.randomUUID();
      await watched.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + 60_000),
        lastSeenAt: new Date(),
      } as never);
      db.queries.length = 0;
      expect((await watched.getSessionAndUser(sessionToken))?.session.lastSeenAt).toBeInstanceOf(
        Date,
      );
      expect(db.queries).toHaveLength(1);
      await watched.updateSession({ sessionToken, lastSeenAt: new Date() } as never);
      const token = { identifier: user.email, token: crypto.randomUUID(), expires: new Date() };
      await watched.createVerificationToken?.(token);
      expect(await watched.countVerificationTokenTry(token, 5)).toBe(1);
      expect(warnings).toEqual([]);
    });

    test("timestamps are stored in the canonical format of the dialect, to the millisecond", async () => {
      const user = await newUser();
      const expires = new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 321));
      const sessionToken = crypto.randomUUID();
      await adapter.createSession({ sessionToken, userId: user.id, expires });
      const table =
        db.dialect === "postgresql"
          ? `"${db.options.schema}"."sessions"`
          : db.dialect === "mysql"
            ? "sessions"
            : '"sessions"';
      if (db.dialect === "mysql") {
        const [row] = await db.prisma.$queryRawUnsafe(
          "SELECT DATE_FORMAT(`expires`, '%Y-%m-%d %H:%i:%s.%f') AS `stored` FROM `sessions` WHERE `sessionToken` = ?",
          sessionToken,
        );
        // datetime(3) in UTC, whatever the server's or the connection's time zone.
        expect(row?.stored).toBe("2031-05-06 07:08:09.321000");
      } else if (db.dialect === "sqlite") {
        const [row] = await db.sql(
          `SELECT "expires", typeof("expires") AS "kind" FROM ${table} WHERE "sessionToken" = ?`,
          sessionToken,
        );
        // INTEGER epoch milliseconds (the driver adapter's timestampFormat "unixepoch-ms").
        expect(row?.kind).toBe("integer");
        expect(Number(row?.expires)).toBe(expires.getTime());
      } else {
        const [row] = await db.sql(
          `SELECT to_char("expires" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS "stored" FROM ${table} WHERE "sessionToken" = $1`,
          sessionToken,
        );
        expect(row?.stored).toBe("2031-05-06 07:08:09.321");
      }
      const read = await db.readers.session?.(sessionToken);
      expect(storedDate(read?.expires).getTime()).toBe(expires.getTime());
    });

    test("JSON account fields round-trip, and null clears them", async () => {
      const user = await newUser();
      const account = {
        userId: user.id,
        type: "oidc" as const,
        provider: "gatehouse-test",
        providerAccountId: crypto.randomUUID(),
        session_state: { sid: "abc", nested: [1, "two"] },
        authorization_details: [{ type: "payment_initiation", amount: "1.00" }],
      };
      await adapter.linkAccount(account);
      const stored = await adapter.getAccount(account.providerAccountId, account.provider);
      expect(stored?.session_state).toEqual(account.session_state);
      expect(stored?.authorization_details).toEqual(account.authorization_details);
      const cleared = await adapter.updateAccount({
        provider: account.provider,
        providerAccountId: account.providerAccountId,
        session_state: null,
        authorization_details: null,
      } as never);
      expect(cleared).not.toBeNull();
      expect("session_state" in (cleared ?? {}), "a cleared JSON field is left out").toBe(false);
      expect("authorization_details" in (cleared ?? {})).toBe(false);
    });

    test("an extended client ($extends) works as it is", async () => {
      const extended = db.prisma.$extends({ query: {} });
      const onExtended = PrismaAdapter(extended, db.options);
      const user = await newUser();
      const sessionToken = crypto.randomUUID();
      await onExtended.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + 60_000),
      });
      expect((await onExtended.getSessionAndUser(sessionToken))?.user.id).toBe(user.id);
    });

    test("a client without the optional models leaves their methods out; users and accounts work", async () => {
      const missing = new Set(["session", "verificationToken", "authenticator", "accountLock"]);
      // A client generated for a JWT-only app has no such delegates.
      const jwtOnly = new Proxy(db.prisma, {
        get: (target, key, receiver) =>
          typeof key === "string" && missing.has(key)
            ? undefined
            : Reflect.get(target, key, receiver),
      });
      const partial = PrismaAdapter(jwtOnly as never, db.options) as unknown as Record<
        string,
        unknown
      >;
      for (const method of [
        "createSession",
        "getSessionAndUser",
        "listSessionsByUserId",
        "createVerificationToken",
        "useVerificationToken",
        "countVerificationTokenTry",
        "createAuthenticator",
        "deleteAuthenticator",
        "lockAccount",
      ]) {
        expect(partial[method], `adapter.${method} without its model`).toBeUndefined();
      }
      const jwtAdapter = partial as unknown as typeof adapter;
      const user = await jwtAdapter.createUser({
        id: crypto.randomUUID(),
        email: `${crypto.randomUUID()}@example.com`,
        emailVerified: null,
      });
      const account = {
        userId: user.id,
        type: "oauth" as const,
        provider: "gatehouse-test",
        providerAccountId: crypto.randomUUID(),
      };
      await jwtAdapter.linkAccount(account);
      expect((await jwtAdapter.getUserByAccount(account))?.id).toBe(user.id);
      expect((await jwtAdapter.deleteUser(user.id))?.id).toBe(user.id);
      expect(await jwtAdapter.getUser(user.id)).toBeNull();
    });

    test("deleteUser removes the user's rows itself (no reliance on enforced foreign keys)", async () => {
      const user = await newUser();
      const sessionToken = crypto.randomUUID();
      await adapter.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + 60_000),
      });
      await adapter.linkAccount({
        userId: user.id,
        type: "oauth",
        provider: "gatehouse-test",
        providerAccountId: crypto.randomUUID(),
      });
      db.queries.length = 0;
      expect((await adapter.deleteUser(user.id))?.id).toBe(user.id);
      const deletes = db.queries.filter((q) => /^\s*DELETE/i.test(q));
      expect(
        deletes.some((q) => /sessions/.test(q)),
        "a DELETE of the user's sessions",
      ).toBe(true);
      expect(
        deletes.some((q) => /accounts/.test(q)),
        "a DELETE of the user's accounts",
      ).toBe(true);
      expect(await db.readers.session?.(sessionToken)).toBeFalsy();
    });
  });
}
