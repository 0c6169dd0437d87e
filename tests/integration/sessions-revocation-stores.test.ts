/**
 * The revocation stores of JWT sessions on every real store (Redis through ioredis and
 * node-redis, PostgreSQL through a `pg` Pool, PGlite): the published revocation store suite of
 * `@gatehousejs/adapter-test`, then what these stores promise beyond the contract, here and for
 * the memory store: entries that vanish once their sessions have expired, pruning, and
 * revocations that survive a restart (a new client and a new store on the same data).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { runRevocationStoreTests } from "@gatehousejs/adapter-test";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import {
  PostgresRevocationStore,
  type PostgresRevocationStoreMethods,
} from "@gatehousejs/pg-adapter";
import { RedisRevocationStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { createClient } from "redis";
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

const nodeRedis: StoreKind<OpenRevocation> = {
  name: "RedisRevocationStore through node-redis",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const clients: { quit(): Promise<unknown> }[] = [];
    const connect = async () => {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      clients.push(client);
      return client;
    };
    const store = RedisRevocationStore(await connect(), { prefix });
    return {
      store,
      reopen: async () => RedisRevocationStore(await connect(), { prefix }),
      adapter: unusedAdapter,
      counts: noCounts,
      async close() {
        const cleaner = new Redis(REDIS_URL);
        let cursor = "0";
        do {
          const [next, keys] = await cleaner.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
          if (keys.length) await cleaner.del(...keys);
          cursor = next;
        } while (cursor !== "0");
        await cleaner.quit();
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

for (const kind of [memory, pglite, postgres, redis, nodeRedis]) {
  await storeBlock(FILE, kind, (open) => {
    // The memory store runs the suite in packages/core/test/revocation-rules.test.ts.
    if (kind !== memory) runRevocationStoreTests({ name: kind.name, store: () => open().store });

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
  });
}
