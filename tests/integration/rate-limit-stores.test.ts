/**
 * The rate-limit stores on every real store (Redis through ioredis and node-redis, PostgreSQL
 * through a `pg` Pool and a `pg` Client, PGlite): the published rate-limit store suite of
 * `@gatehousejs/adapter-test` (the memory store runs it in
 * packages/core/test/rate-limit-memory-store-suite.test.ts); here and in memory, device cookies
 * through `Auth()` (support/rate-limit-device.ts); what each store keeps (Redis keys that expire
 * with their counter, PostgreSQL rows reset in place and pruned), one round trip per hit, and two
 * child processes sharing one Redis (or one PostgreSQL schema) that enforce one limit between
 * them.
 */
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { runRateLimitStoreTests } from "@gatehousejs/adapter-test";
import type { RateLimitOptions, RateLimitStore } from "@gatehousejs/core/types";
import {
  PostgresRateLimitStore,
  type PostgresRateLimitStoreMethods,
  type Queryable,
} from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Client, Pool } from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MemoryRateLimitStore } from "../../packages/core/src/lib/features/rate-limit/memory.js";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  serverUnavailable,
  storeBlock,
} from "./stores.js";
import { childProcesses } from "./support/children.js";
import { deviceCookieCases } from "./support/rate-limit-device.js";
import { type SignInAnswer, signIn, signInConfig } from "./support/rate-limit-signin.js";

const FILE = "rate-limit-stores.test.ts";
const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OpenRateLimit extends OpenStore {
  store: RateLimitStore;
}

const unusedAdapter = {} as OpenStore["adapter"];
const noCounts = async () => ({ users: 0, accounts: 0, sessions: 0 });
const opened = (store: RateLimitStore, close: () => Promise<unknown>): OpenRateLimit => ({
  store,
  adapter: unusedAdapter,
  counts: noCounts,
  close: async () => {
    await close();
  },
});

/** Every key under `prefix` (SCAN, never KEYS). */
async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    found.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

async function deleteKeys(client: Redis, prefix: string) {
  const keys = await keysUnder(client, prefix);
  for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
}

const memory: StoreKind<OpenRateLimit> = {
  name: "MemoryRateLimitStore",
  open: async () => opened(MemoryRateLimitStore(), async () => {}),
};

const ioredis: StoreKind<OpenRateLimit> = {
  name: "RedisRateLimitStore through ioredis",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const client = new Redis(REDIS_URL);
    return opened(RedisRateLimitStore(client, { prefix }), async () => {
      await deleteKeys(client, prefix);
      await client.quit();
    });
  },
};

const nodeRedis: StoreKind<OpenRateLimit> = {
  name: "RedisRateLimitStore through node-redis",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    return opened(RedisRateLimitStore(client, { prefix }), async () => {
      const cleaner = new Redis(REDIS_URL);
      await deleteKeys(cleaner, prefix);
      await cleaner.quit();
      await client.quit();
    });
  },
};

const pgPool: StoreKind<OpenRateLimit> = {
  name: "PostgresRateLimitStore through a pg Pool",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("rate");
    const pool = new Pool({ connectionString: DATABASE_URL, max: 20 });
    pool.on("error", () => {});
    const store = PostgresRateLimitStore(pool, { schema });
    await store.migrate();
    return opened(store, async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });
  },
};

const pgClient: StoreKind<OpenRateLimit> = {
  name: "PostgresRateLimitStore through a pg Client",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("rate");
    const client = new Client({ connectionString: DATABASE_URL });
    client.on("error", () => {});
    await client.connect();
    const store = PostgresRateLimitStore(client, { schema });
    await store.migrate();
    return opened(store, async () => {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });
  },
};

const pglite: StoreKind<OpenRateLimit> = {
  name: "PostgresRateLimitStore on PGlite",
  async open() {
    const db = new PGlite();
    const store = PostgresRateLimitStore(db);
    await store.migrate();
    return opened(store, () => db.close());
  },
};

for (const kind of [memory, pglite, pgPool, pgClient, ioredis, nodeRedis]) {
  await storeBlock(FILE, kind, (open) => {
    if (kind !== memory) runRateLimitStoreTests({ name: kind.name, store: () => open().store });
    deviceCookieCases(() => open().store);
  });
}

/** A Redis client that records the name of every command it sends. */
function recordingRedis(client: Redis) {
  const sent: string[] = [];
  return {
    sent,
    client: {
      call: (command: string, ...args: (string | number)[]) => {
        sent.push(command.toUpperCase());
        return client.call(command, ...args);
      },
    },
  };
}

const redisReason = await serverUnavailable("Redis");
const postgresReason = await serverUnavailable("PostgreSQL");
const ci = process.env.CI === "true";

describe.skipIf(redisReason !== undefined && !ci)("RedisRateLimitStore on the Redis server", () => {
  const prefix = `gatehouse-it:${randomUUID()}:`;
  let client: Redis;
  beforeAll(() => {
    if (redisReason) throw new Error(`${redisReason}; CI=true, so this fails`);
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    if (!client) return;
    await deleteKeys(client, prefix);
    await client.quit();
  });

  test("a hit is one EVALSHA and a peek one HMGET: one round trip each", async () => {
    const { sent, client: recording } = recordingRedis(client);
    const store = RedisRateLimitStore(recording, { prefix });
    await store.hit(randomUUID(), MINUTE); // loads the script on a server that lacks it
    sent.length = 0;
    const key = randomUUID();
    await store.hit(key, MINUTE);
    await store.hit(key, MINUTE, { extend: true });
    await store.peek(key);
    await store.reset(key);
    expect(sent).toEqual(["EVALSHA", "EVALSHA", "HMGET", "DEL"]);
  });

  test("a counter is one key under <prefix>rate: that expires exactly at resetAt", async () => {
    const store = RedisRateLimitStore(client, { prefix });
    const key = `user:${randomUUID()}`;
    const { resetAt } = await store.hit(key, MINUTE);
    const stored = `${prefix}rate:${key}`;
    expect(await client.hgetall(stored)).toEqual({ c: "1", r: String(resetAt) });
    expect(Number(await client.call("PEXPIRETIME", stored))).toBe(resetAt);
    const extended = await store.hit(key, 2 * MINUTE, { extend: true });
    expect(Number(await client.call("PEXPIRETIME", stored))).toBe(extended.resetAt);
    // Ended: Redis has forgotten the key by itself; nothing to prune.
    const short = `short:${randomUUID()}`;
    await store.hit(short, 30);
    await sleep(200);
    expect(await client.exists(`${prefix}rate:${short}`)).toBe(0);
  });

  test("two clients on one Redis share one counter", async () => {
    const other = new Redis(REDIS_URL);
    try {
      const [a, b] = [
        RedisRateLimitStore(client, { prefix }),
        RedisRateLimitStore(other, { prefix }),
      ];
      const key = randomUUID();
      await a.hit(key, MINUTE);
      expect((await b.hit(key, MINUTE)).count).toBe(2);
      expect((await a.peek(key))?.count).toBe(2);
      await b.reset(key);
      expect(await a.peek(key)).toBeNull();
    } finally {
      await other.quit();
    }
  });

  test("a window that is not a positive duration is refused before anything is sent", async () => {
    const { sent, client: recording } = recordingRedis(client);
    const store = RedisRateLimitStore(recording, { prefix });
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "60" as unknown as number]) {
      await expect(store.hit("k", bad)).rejects.toThrow(TypeError);
    }
    expect(sent).toEqual([]);
  });
});

/** A Queryable that records every statement it runs. */
function recordingPg(db: Queryable) {
  const sent: string[] = [];
  return {
    sent,
    client: {
      query: (text: string, params?: unknown[]) => {
        sent.push(text);
        return db.query(text, params);
      },
    } satisfies Queryable,
  };
}

describe("PostgresRateLimitStore on PGlite", () => {
  let db: PGlite;
  let store: PostgresRateLimitStoreMethods;
  beforeAll(async () => {
    db = new PGlite();
    store = PostgresRateLimitStore(db, { schema: "limits" });
    await store.migrate();
    await store.migrate(); // as every start does: a no-op on an existing table
  });
  afterAll(() => db.close());

  const rows = async () =>
    (await db.query<{ key: string; count: number }>(`SELECT * FROM "limits"."rate_limits"`)).rows;

  test("a hit is one statement (INSERT … ON CONFLICT … RETURNING); peek and reset one each", async () => {
    const { sent, client } = recordingPg(db);
    const recorded = PostgresRateLimitStore(client, { schema: "limits" });
    const key = randomUUID();
    await recorded.hit(key, MINUTE);
    await recorded.hit(key, MINUTE, { extend: true });
    await recorded.peek(key);
    await recorded.reset(key);
    expect(sent).toHaveLength(4);
    expect(sent[0]).toMatch(
      /^INSERT INTO "limits"\."rate_limits"[\s\S]*ON CONFLICT[\s\S]*RETURNING/,
    );
    expect(sent[1]).toBe(sent[0]);
  });

  test("an ended row is started again in place by the next hit", async () => {
    const key = `reuse:${randomUUID()}`;
    await store.hit(key, 30);
    await store.hit(key, 30);
    await sleep(200);
    expect(await store.peek(key)).toBeNull();
    expect((await store.hit(key, MINUTE)).count).toBe(1);
    expect((await rows()).filter((r) => r.key === key)).toHaveLength(1);
  });

  test("prune deletes the ended rows and only them, and says how many", async () => {
    const ended = [randomUUID(), randomUUID(), randomUUID()].map((id) => `prune:${id}`);
    const live = `prune:${randomUUID()}`;
    for (const key of ended) await store.hit(key, 30);
    await store.hit(live, MINUTE);
    await sleep(200);
    const before = (await rows()).length;
    expect(await store.prune()).toBeGreaterThanOrEqual(ended.length);
    const left = (await rows()).map((r) => r.key);
    for (const key of ended) expect(left).not.toContain(key);
    expect(left).toContain(live);
    expect(left.length).toBeLessThanOrEqual(before - ended.length);
    expect((await store.peek(live))?.count).toBe(1);
    expect(await store.prune()).toBe(0);
  });

  test("a window that is not a positive duration is refused before any SQL runs", async () => {
    const { sent, client } = recordingPg(db);
    const recorded = PostgresRateLimitStore(client, { schema: "limits" });
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(recorded.hit("k", bad)).rejects.toThrow(TypeError);
    }
    expect(sent).toEqual([]);
  });

  test("an unsafe schema name is refused before any SQL runs", () => {
    expect(() => PostgresRateLimitStore(db, { schema: 'a"; DROP TABLE x; --' })).toThrow(TypeError);
  });
});

describe.skipIf(postgresReason !== undefined && !ci)(
  "PostgresRateLimitStore on the PostgreSQL server",
  () => {
    const schema = freshSchema("rate");
    let pool: Pool;
    beforeAll(() => {
      if (postgresReason) throw new Error(`${postgresReason}; CI=true, so this fails`);
      pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
      pool.on("error", () => {});
    });
    afterAll(async () => {
      if (!pool) return;
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });

    test("two pools on one database share one counter; prune runs beside live hits", async () => {
      const other = new Pool({ connectionString: DATABASE_URL, max: 10 });
      other.on("error", () => {});
      try {
        const a = PostgresRateLimitStore(pool, { schema });
        const b = PostgresRateLimitStore(other, { schema });
        await Promise.all([a.migrate(), b.migrate()]); // two instances starting at once
        const key = randomUUID();
        await a.hit(key, MINUTE);
        expect((await b.hit(key, MINUTE)).count).toBe(2);
        // Pruning while 200 hits run on the key never loses or repeats a count.
        const [, hits] = await Promise.all([
          b.prune(),
          Promise.all(Array.from({ length: 200 }, () => a.hit(key, MINUTE))),
        ]);
        expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 200 }, (_, i) => i + 3),
        );
        await b.reset(key);
        expect(await a.peek(key)).toBeNull();
      } finally {
        await other.end();
      }
    });
  },
);

/* ---- Two processes sharing one store ---------------------------------------------------- */

const children = childProcesses("rate-limit");
const runChild = children.run;

const HITS_PER_CHILD = 300;
const LIMIT = 50;

/** Two children hit one key at once; together they see each count once and one limit. */
async function twoProcesses(storeEnv: Record<string, string>, peek: RateLimitStore["peek"]) {
  const key = `shared:${randomUUID()}`;
  const env = {
    ...storeEnv,
    KEY: key,
    HITS: String(HITS_PER_CHILD),
    WINDOW_MS: String(10 * MINUTE),
    // Far enough ahead for both processes to have loaded and connected.
    START_AT: String(Date.now() + 1500),
  };
  const run = () => runChild<{ counts: number[] }>("rate-limit-child", env).then((r) => r.counts);
  const [a, b] = await Promise.all([run(), run()]);
  const all = [...a, ...b].sort((x, y) => x - y);
  expect(all).toEqual(Array.from({ length: 2 * HITS_PER_CHILD }, (_, i) => i + 1));
  // With a limit of 50 per window, the two processes together let exactly 50 through.
  const allowed = (counts: number[]) => counts.filter((count) => count <= LIMIT).length;
  expect(allowed(a) + allowed(b)).toBe(LIMIT);
  expect((await peek(key))?.count).toBe(2 * HITS_PER_CHILD);
}

const SECRET = "rate-limit-stores-secret-0123456789abcdef";
const quiet = { email: false, webauthn: false, oauth: false } as const;

/** Two app instances (`Auth()` in two children) on one store, signing in at the same moment. */
async function twoApps(
  storeEnv: Record<string, string>,
  run: { limits: object; attempts: number; client: string; password: string; sequential?: boolean },
): Promise<SignInAnswer[][]> {
  const env = {
    ...storeEnv,
    SECRET,
    LIMITS: JSON.stringify(run.limits),
    ATTEMPTS: String(run.attempts),
    CLIENT: run.client,
    PASSWORD: run.password,
    SEQUENTIAL: run.sequential ? "1" : "0",
    START_AT: String(Date.now() + 2000),
  };
  const one = () =>
    runChild<{ answers: SignInAnswer[] }>("rate-limit-auth-child", env).then((r) => r.answers);
  return Promise.all([one(), one()]);
}

interface SharedStore {
  store: RateLimitStore;
  /** What a child needs to open the same store. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The cross-process tests on one server's store; skipped (or failed in CI) without the server. */
function twoProcessSuite(
  server: string,
  reason: string | undefined,
  open: () => Promise<SharedStore>,
) {
  describe.skipIf(reason !== undefined && !ci)(`two processes sharing one ${server}`, () => {
    let shared: SharedStore | undefined;
    const opened = () => {
      if (!shared) throw new Error(`${server} was not opened`);
      return shared;
    };
    beforeAll(async () => {
      if (reason) throw new Error(`${reason}; CI=true, so this fails`);
      shared = await open();
    });
    afterAll(async () => {
      await shared?.close();
    });

    test("hit one key: the counts 1 to 600 each once across both, one limit between them", async () => {
      const { env, store } = opened();
      await twoProcesses(env, store.peek);
    }, 60_000);

    test("Auth() in both: the per-client limit of credentials sign-ins is one limit across them", async () => {
      const { env } = opened();
      const limits = {
        ...quiet,
        credentials: { perClient: { max: 10, windowSeconds: 600 }, failures: false },
      };
      const client = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
      const answers = await twoApps(env, { limits, attempts: 15, client, password: "wonderland" });
      const all = answers.flat();
      const through = all.filter((a) => a.status !== 429);
      const limited = all.filter((a) => a.status === 429);
      // Each instance alone would have let 10 through (20 in all); together they let 10.
      expect(through).toHaveLength(10);
      expect(through.every((a) => a.status === 200 && a.signedIn)).toBe(true);
      expect(limited).toHaveLength(20);
      for (const a of limited) {
        expect(a.signedIn).toBe(false);
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(600);
      }
    }, 60_000);

    test("Auth() in both: failed passwords from one client share one backoff; another client still signs in", async () => {
      const { env, store } = opened();
      const limits = {
        ...quiet,
        credentials: {
          perClient: false,
          failures: { freeAttempts: 3, baseSeconds: 600, maxSeconds: 600 },
        },
      };
      const attacker = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
      const answers = await twoApps(env, {
        limits,
        attempts: 6,
        client: attacker,
        password: "guess",
        sequential: true,
      });
      const through = answers.flat().filter((a) => a.status !== 429);
      // Three free failures, then the fourth starts a 10-minute wait that both instances see.
      // Each instance alone would have let 4 through (8 in all). The check comes before the
      // count, so one attempt of the other instance may be in flight when the wait begins.
      expect(through.length).toBeGreaterThanOrEqual(4);
      expect(through.length).toBeLessThanOrEqual(5);
      expect(answers.flat().some((a) => a.signedIn)).toBe(false);
      // A third instance on the same store: the attacker's address waits, even with the right
      // password; the real user from another address signs in.
      const config = signInConfig(SECRET, store, limits as Omit<RateLimitOptions, "store">);
      const blocked = await signIn(config, attacker, "wonderland");
      expect(blocked.status).toBe(429);
      expect(blocked.signedIn).toBe(false);
      const user = await signIn(config, "192.0.2.10", "wonderland");
      expect(user).toMatchObject({ status: 200, signedIn: true });
    }, 60_000);
  });
}

twoProcessSuite("Redis", redisReason, async () => {
  const prefix = `gatehouse-it:${randomUUID()}:`;
  const client = new Redis(REDIS_URL);
  return {
    store: RedisRateLimitStore(client, { prefix }),
    env: { STORE: "redis", REDIS_URL, PREFIX: prefix },
    async close() {
      await deleteKeys(client, prefix);
      await client.quit();
    },
  };
});

twoProcessSuite("PostgreSQL", postgresReason, async () => {
  const schema = freshSchema("rate2p");
  const pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
  pool.on("error", () => {});
  const store = PostgresRateLimitStore(pool, { schema });
  await store.migrate();
  return {
    store,
    env: { STORE: "postgres", DATABASE_URL, SCHEMA: schema },
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
});
