/**
 * The revocation stores of JWT sessions on every real store (Redis, PostgreSQL through a `pg`
 * Pool, PGlite) and in memory: the contract's semantics, what a listing shows, entries that
 * vanish once their sessions have expired, and revocations that survive a restart (a new client
 * and a new store on the same data).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import {
  PostgresRevocationStore,
  type PostgresRevocationStoreMethods,
} from "@gatehousejs/pg-adapter";
import { RedisRevocationStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { expect, test } from "vitest";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  storeBlock,
} from "./stores.js";

const FILE = "sessions-revocation-stores.test.ts";
const HOUR = 3_600_000;

/** An opened revocation store; `reopen` gives a new store over the same data (a restart). */
interface OpenRevocation extends OpenStore {
  store: Required<RevocationStore>;
  reopen?(): Promise<Required<RevocationStore>>;
  /** How many keys or rows the store holds (for one user, if given), expired entries included. */
  entries?(userId?: string): Promise<number>;
}

const unusedAdapter = {} as OpenStore["adapter"];
const noCounts = async () => ({ users: 0, accounts: 0, sessions: 0 });

const memory: StoreKind<OpenRevocation> = {
  name: "memory revocation store",
  async open() {
    return {
      store: MemoryRevocationStore(),
      adapter: unusedAdapter,
      counts: noCounts,
      close: async () => {},
    };
  },
};

const redis: StoreKind<OpenRevocation> = {
  name: "RedisRevocationStore on the Redis server",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const clients = [new Redis(REDIS_URL)];
    const keys = async (userId?: string) => {
      const found: string[] = [];
      let cursor = "0";
      const pattern = userId ? `${prefix}*${userId}*` : `${prefix}*`;
      do {
        const [next, batch] = await clients[0]!.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        found.push(...batch);
        cursor = next;
      } while (cursor !== "0");
      return found;
    };
    return {
      store: RedisRevocationStore(clients[0]!, { prefix }),
      async reopen() {
        const client = new Redis(REDIS_URL);
        clients.push(client);
        return RedisRevocationStore(client, { prefix });
      },
      entries: async (userId) => (await keys(userId)).length,
      adapter: unusedAdapter,
      counts: noCounts,
      async close() {
        const found = await keys();
        if (found.length) await clients[0]!.del(...found);
        for (const client of clients) await client.quit();
      },
    };
  },
};

const postgres: StoreKind<OpenRevocation> = {
  name: "PostgresRevocationStore on the PostgreSQL server",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("revocation");
    const pools = [new Pool({ connectionString: DATABASE_URL, max: 20 })];
    for (const pool of pools) pool.on("error", () => {});
    const store = PostgresRevocationStore(pools[0]!, { schema });
    await store.migrate();
    return {
      store,
      async reopen() {
        const pool = new Pool({ connectionString: DATABASE_URL, max: 5 });
        pool.on("error", () => {});
        pools.push(pool);
        const again = PostgresRevocationStore(pool, { schema });
        await again.migrate(); // as a restarted app does: a no-op on existing tables
        return again;
      },
      async entries() {
        const { rows } = await pools[0]!.query(
          `SELECT (SELECT count(*) FROM "${schema}"."revoked_sessions")
                + (SELECT count(*) FROM "${schema}"."revocation_epochs")
                + (SELECT count(*) FROM "${schema}"."jwt_sessions") AS n`,
        );
        return Number((rows[0] as { n: unknown }).n);
      },
      adapter: unusedAdapter,
      counts: noCounts,
      async close() {
        await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        for (const pool of pools) await pool.end();
      },
    };
  },
};

const pglite: StoreKind<OpenRevocation> = {
  name: "PostgresRevocationStore on PGlite",
  async open() {
    const db = new PGlite();
    const store = PostgresRevocationStore(db);
    await store.migrate();
    return { store, adapter: unusedAdapter, counts: noCounts, close: () => db.close() };
  },
};

const sid = () => randomBytes(16).toString("base64url").slice(0, 22);
const seconds = (ms = Date.now()) => Math.floor(ms / 1000);
const later = (ms = HOUR) => new Date(Date.now() + ms);

function record(userId: string, overrides: Partial<RevocationSessionRecord> = {}) {
  return {
    userId,
    sessionId: sid(),
    expires: later(),
    createdAt: new Date(Date.now() - 60_000),
    lastSeenAt: new Date(Date.now() - 30_000),
    provider: "github",
    providerType: "oauth",
    client: "Firefox 133 on Linux",
    ip: null,
    ...overrides,
  } satisfies RevocationSessionRecord;
}

for (const kind of [memory, pglite, postgres, redis]) {
  await storeBlock(FILE, kind, (open) => {
    test("a session nobody revoked passes; revoking it ends it and only it", async () => {
      const { store } = open();
      const userId = randomUUID();
      const [a, b] = [sid(), sid()];
      const issuedAt = seconds() - 10;
      expect(await store.check({ userId, sessionId: a, issuedAt })).toBe(false);
      await store.revokeSession({ userId, sessionId: a, expires: later() });
      expect(await store.check({ userId, sessionId: a, issuedAt })).toBe(true);
      expect(await store.check({ userId, sessionId: b, issuedAt })).toBe(false);
      // The same id under another user is another session: one user cannot end another's.
      expect(await store.check({ userId: randomUUID(), sessionId: a, issuedAt })).toBe(false);
    });

    test("revokeUser ends what was issued at or before the epoch, except the spared session", async () => {
      const { store } = open();
      const userId = randomUUID();
      const now = seconds();
      const [kept, other] = [sid(), sid()];
      await store.revokeUser({ userId, at: now, except: kept, expires: later() });
      expect(await store.check({ userId, sessionId: other, issuedAt: now - 100 })).toBe(true);
      expect(await store.check({ userId, sessionId: other, issuedAt: now })).toBe(true);
      expect(await store.check({ userId, sessionId: kept, issuedAt: now - 100 })).toBe(false);
      // Issued after the epoch (a new sign-in): alive.
      expect(await store.check({ userId, sessionId: sid(), issuedAt: now + 1 })).toBe(false);
      // Another user is untouched.
      expect(await store.check({ userId: randomUUID(), sessionId: other, issuedAt: 1 })).toBe(
        false,
      );
    });

    test("an epoch whose exception is 'legacy' spares no token without a sid", async () => {
      const { store } = open();
      const userId = randomUUID();
      const now = seconds();
      // Every token without a sid is checked as "legacy": naming it would spare them all.
      await store.revokeUser({ userId, at: now, except: "legacy", expires: later() });
      expect(await store.check({ userId, sessionId: "legacy", issuedAt: now - 100 })).toBe(true);
      expect(await store.check({ userId, sessionId: "legacy", issuedAt: now })).toBe(true);
      // A token without a sid issued after the epoch lives on, as any session does.
      expect(await store.check({ userId, sessionId: "legacy", issuedAt: now + 1 })).toBe(false);
    });

    test("a later revokeUser without exception ends the spared session; the epoch never moves back", async () => {
      const { store } = open();
      const userId = randomUUID();
      const now = seconds();
      const kept = sid();
      await store.revokeUser({ userId, at: now, except: kept, expires: later() });
      await store.revokeUser({ userId, at: now - 50, expires: later() });
      expect(await store.check({ userId, sessionId: kept, issuedAt: now - 100 })).toBe(true);
      // The epoch stayed at `now`, not `now - 50`.
      expect(await store.check({ userId, sessionId: sid(), issuedAt: now - 10 })).toBe(true);
    });

    test("recorded sessions are listed until they are revoked, one by one or all at once", async () => {
      const { store } = open();
      const userId = randomUUID();
      const first = record(userId, { createdAt: new Date(Date.now() - 120_000) });
      const second = record(userId, { ip: "203.0.113.0" });
      const third = record(userId);
      for (const r of [first, second, third]) await store.recordSession(r);
      await store.recordSession(record(randomUUID())); // someone else's
      const listed = await store.listSessions(userId);
      expect(listed.map((r) => r.sessionId).sort()).toEqual(
        [first, second, third].map((r) => r.sessionId).sort(),
      );
      const shown = listed.find((r) => r.sessionId === second.sessionId);
      expect(shown).toMatchObject({
        userId,
        provider: "github",
        providerType: "oauth",
        client: "Firefox 133 on Linux",
        ip: "203.0.113.0",
      });
      expect(shown?.expires.getTime()).toBe(second.expires.getTime());
      expect(shown?.createdAt?.getTime()).toBe(second.createdAt?.getTime());

      await store.revokeSession({ userId, sessionId: first.sessionId, expires: first.expires });
      expect((await store.listSessions(userId)).map((r) => r.sessionId).sort()).toEqual(
        [second, third].map((r) => r.sessionId).sort(),
      );
      await store.revokeUser({ userId, at: seconds(), except: third.sessionId, expires: later() });
      expect((await store.listSessions(userId)).map((r) => r.sessionId)).toEqual([third.sessionId]);
      expect(await store.listSessions(randomUUID())).toEqual([]);
    });

    test("a session recorded again (seen after updateAge) is listed once, with its new times", async () => {
      const { store } = open();
      const userId = randomUUID();
      const first = record(userId);
      await store.recordSession(first);
      const seen = new Date();
      await store.recordSession({ ...first, lastSeenAt: seen, expires: later(2 * HOUR) });
      const listed = await store.listSessions(userId);
      expect(listed).toHaveLength(1);
      expect(listed[0]?.lastSeenAt?.getTime()).toBe(seen.getTime());
      // A re-issue records no provider (undefined): the one from the sign-in is kept.
      await store.recordSession({ ...first, provider: undefined, providerType: undefined });
      expect((await store.listSessions(userId))[0]).toMatchObject({
        provider: "github",
        providerType: "oauth",
      });
    });

    test("expired records are neither listed nor kept", async () => {
      const { store } = open();
      const userId = randomUUID();
      await store.recordSession(record(userId, { expires: new Date(Date.now() - 1000) }));
      await store.recordSession(record(userId, { expires: later(300) }));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await store.listSessions(userId)).toEqual([]);
    });

    test("revocation entries vanish once the sessions they concern have expired", async () => {
      const { store, entries } = open();
      const userId = randomUUID();
      const sessionId = sid();
      await store.revokeSession({ userId, sessionId, expires: later(300) });
      await store.revokeUser({ userId, at: seconds(), expires: later(300) });
      expect(await store.check({ userId, sessionId, issuedAt: seconds() + 5 })).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Forgotten: the session itself has expired, so nothing can present it any more.
      expect(await store.check({ userId, sessionId, issuedAt: seconds() - 100 })).toBe(false);
      // Redis's TTLs removed every key of the user.
      if (entries && kind === redis) expect(await entries(userId)).toBe(0);
    });

    if (kind === postgres) {
      test("prune deletes the entries of expired sessions and keeps live ones", async () => {
        const { entries } = open();
        const store = open().store as PostgresRevocationStoreMethods;
        await store.prune();
        const before = await entries!();
        const userId = randomUUID();
        await store.revokeSession({ userId, sessionId: sid(), expires: later(200) });
        await store.revokeSession({ userId, sessionId: sid(), expires: later() });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await store.prune();
        expect(await entries!()).toBe(before + 1);
      });
    }

    if (kind.server) {
      test("revocations survive a restart: a new client and a new store see them", async () => {
        const { store, reopen } = open();
        const userId = randomUUID();
        const [gone, kept, listed] = [sid(), sid(), record(randomUUID())];
        const otherUser = listed.userId;
        await store.revokeSession({ userId, sessionId: gone, expires: later() });
        await store.revokeUser({
          userId: otherUser,
          at: seconds(),
          except: kept,
          expires: later(),
        });
        await store.recordSession(listed);
        await store.recordSession({ ...listed, sessionId: kept, createdAt: new Date() });

        const restarted = await reopen!();
        expect(await restarted.check({ userId, sessionId: gone, issuedAt: seconds() })).toBe(true);
        expect(
          await restarted.check({ userId: otherUser, sessionId: sid(), issuedAt: seconds() - 1 }),
        ).toBe(true);
        expect(
          await restarted.check({ userId: otherUser, sessionId: kept, issuedAt: seconds() - 1 }),
        ).toBe(false);
        expect((await restarted.listSessions(otherUser)).map((r) => r.sessionId)).toEqual([kept]);
      });
    }

    test("20 concurrent revocations and checks agree: every revoked session reads revoked", async () => {
      const { store } = open();
      const userId = randomUUID();
      const ids = Array.from({ length: 20 }, sid);
      const issuedAt = seconds() - 5;
      await Promise.all(
        ids.map(async (sessionId, i) => {
          await store.check({ userId, sessionId, issuedAt });
          if (i % 2 === 0) await store.revokeSession({ userId, sessionId, expires: later() });
        }),
      );
      const answers = await Promise.all(
        ids.map((sessionId) => store.check({ userId, sessionId, issuedAt })),
      );
      expect(answers).toEqual(ids.map((_, i) => i % 2 === 0));
    });
  });
}
