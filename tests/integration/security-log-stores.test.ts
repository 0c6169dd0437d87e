/**
 * The security activity log on the real stores: PostgresSecurityEventStore on the PostgreSQL
 * server and on PGlite, RedisSecurityEventStore on the Redis server through ioredis and
 * node-redis. Each runs the published security-event store suite of `@gatehousejs/adapter-test`,
 * then a sign-in, a refused sign-in and a sign-out through `Auth()` (database sessions on the
 * same store's adapter), read back by a new store instance over new connections (a restart), and
 * the raw rows and keys scanned for the secrets the test used.
 */
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { runSecurityEventStoreTests } from "@gatehousejs/adapter-test";
import { listSecurityEvents } from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig, SecurityEventStore } from "@gatehousejs/core/types";
import { migrate, PostgresAdapter, PostgresSecurityEventStore } from "@gatehousejs/pg-adapter";
import { RedisAdapter, RedisSecurityEventStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { createClient } from "redis";
import { expect, test } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../../packages/core/test/helpers.js";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  storeBlock,
} from "./stores.js";

interface LogStore extends OpenStore {
  events: SecurityEventStore;
  /** A new store instance over new connections to the same data; closed with the store. */
  reopen(): Promise<SecurityEventStore>;
  /** Everything the log stored, as text. */
  dump(): Promise<string>;
}

const FILE = "security-log-stores.test.ts";

const pgServer: StoreKind<LogStore> = {
  name: "PostgresSecurityEventStore on the PostgreSQL server",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("seclog");
    const pools: Pool[] = [];
    const pool = () => {
      const p = new Pool({ connectionString: DATABASE_URL, max: 5 });
      p.on("error", () => {});
      pools.push(p);
      return p;
    };
    const main = pool();
    await migrate(main, { schema });
    const events = PostgresSecurityEventStore(main, { schema });
    await events.migrate();
    await events.migrate(); // twice: safe on every start
    return {
      adapter: PostgresAdapter(main, { schema }),
      events,
      counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
      async reopen() {
        return PostgresSecurityEventStore(pool(), { schema });
      },
      async dump() {
        const { rows } = await main.query(`SELECT * FROM "${schema}"."security_events"`);
        return JSON.stringify(rows);
      },
      async close() {
        await main.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  },
};

const pgLite: StoreKind<LogStore> = {
  name: "PostgresSecurityEventStore on PGlite",
  async open() {
    const db = new PGlite();
    await migrate(db);
    const events = PostgresSecurityEventStore(db);
    await events.migrate();
    return {
      adapter: PostgresAdapter(db),
      events,
      counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
      reopen: async () => PostgresSecurityEventStore(db),
      async dump() {
        return JSON.stringify((await db.query(`SELECT * FROM "security_events"`)).rows);
      },
      close: () => db.close(),
    };
  },
};

async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

const redis: StoreKind<LogStore> = {
  name: "RedisSecurityEventStore on the Redis server",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const clients: Redis[] = [];
    const connect = () => {
      const c = new Redis(REDIS_URL);
      clients.push(c);
      return c;
    };
    const main = connect();
    return {
      adapter: RedisAdapter(main, { prefix }),
      events: RedisSecurityEventStore(main, { prefix }),
      counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
      reopen: async () => RedisSecurityEventStore(connect(), { prefix }),
      async dump() {
        const keys = (await keysUnder(main, `${prefix}security:`)).sort();
        const out: string[] = [];
        for (const key of keys) out.push(key, ...(await main.zrange(key, "0", "-1")));
        return out.join("\n");
      },
      async close() {
        const keys = await keysUnder(main, prefix);
        for (let i = 0; i < keys.length; i += 500) await main.del(...keys.slice(i, i + 500));
        await Promise.all(clients.map((c) => c.quit()));
      },
    };
  },
};

/** The same store through node-redis; ioredis only reads and cleans up behind it. */
const nodeRedis: StoreKind<LogStore> = {
  name: "RedisSecurityEventStore through node-redis",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const clients: { quit(): Promise<unknown> }[] = [];
    const connect = async () => {
      const c = createClient({ url: REDIS_URL });
      await c.connect();
      clients.push(c);
      return c;
    };
    const main = await connect();
    const reader = new Redis(REDIS_URL);
    return {
      adapter: RedisAdapter(main, { prefix }),
      events: RedisSecurityEventStore(main, { prefix }),
      counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
      reopen: async () => RedisSecurityEventStore(await connect(), { prefix }),
      async dump() {
        const keys = (await keysUnder(reader, `${prefix}security:`)).sort();
        const out: string[] = [];
        for (const key of keys) out.push(key, ...(await reader.zrange(key, "0", "-1")));
        return out.join("\n");
      },
      async close() {
        const keys = await keysUnder(reader, prefix);
        for (let i = 0; i < keys.length; i += 500) await reader.del(...keys.slice(i, i + 500));
        await reader.quit();
        await Promise.all(clients.map((c) => c.quit()));
      },
    };
  },
};

const PASSWORD = "correct-horse-battery-staple";
const WRONG = "wrong-horse-battery-staple";
const AGENT =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

function config(adapter: Adapter, store: SecurityEventStore): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter,
    session: { strategy: "database", recordIp: true },
    trustedProxies: 1,
    securityLog: { store },
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password" } },
        authorize: async ({ email, password }) =>
          password === PASSWORD && typeof email === "string"
            ? await adapter.getUserByEmail!(email)
            : null,
      }),
    ],
  };
}

async function signIn(cfg: AuthConfig, jar: Jar, email: string, password: string) {
  const csrf = await csrfToken(cfg, jar);
  return send(cfg, jar, "/auth/callback/credentials", {
    form: { csrfToken: csrf, email, password },
    headers: { "user-agent": AGENT, "x-forwarded-for": "198.51.100.77" },
  });
}

for (const kind of [pgServer, pgLite, redis, nodeRedis]) {
  await storeBlock(FILE, kind, (store) => {
    runSecurityEventStoreTests({ name: kind.name, store: () => store().events });

    test("sign-in, refused sign-in and sign-out survive a restart; no secret is stored", async () => {
      const { adapter, events } = store();
      const email = `${randomUUID()}@example.com`;
      const user = await adapter.createUser!({ id: randomUUID(), email, emailVerified: null });
      const cfg = config(adapter, events);
      const jar = new Jar();
      await signIn(cfg, jar, email, WRONG);
      const signedIn = await signIn(cfg, jar, email, PASSWORD);
      expect(signedIn.status).toBe(302);
      const sessionToken = jar.cookies.get("authjs.session-token")!;
      expect(sessionToken).toBeTruthy();
      const csrf = await csrfToken(cfg, jar);
      await send(cfg, jar, "/auth/signout", { form: { csrfToken: csrf } });
      expect(cfg.logger?.error).not.toHaveBeenCalled();

      const restarted = config(adapter, await store().reopen());
      const listed = await listSecurityEvents(restarted, user.id);
      expect(listed.map((e) => e.type)).toEqual(["signOut", "signIn", "signInFailed"]);
      expect(listed[1]).toMatchObject({
        provider: "credentials",
        providerType: "credentials",
        newClient: true,
        client: expect.stringMatching(/^Chrome 131/),
        ip: "198.51.100.0",
      });
      expect(listed[0]!.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);

      const raw = await store().dump();
      expect(raw).toContain(user.id);
      for (const secret of [PASSWORD, WRONG, SECRET, sessionToken, csrf, "198.51.100.77"]) {
        expect(raw).not.toContain(secret);
      }
    });
  });
}
