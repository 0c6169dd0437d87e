/**
 * Sign-out while the session store is cut, slow or half-open, on real servers: PostgreSQL through
 * a `pg` Pool and the pg adapter, Redis through ioredis and the Redis adapter, and JWT sessions
 * with the Redis revocation store. Instance A reaches its store through a fault-injecting TCP
 * proxy (support/fault-proxy.ts); instance B, another app instance on the same data, reaches it
 * directly and checks whether a copy of the signed-out cookie still signs in.
 *
 * The promise under test: `POST /signout` either ends the session (after bounded retries: the
 * cookie is cleared, `signOut` fires, and the copy stops working on B), or says it could not (a
 * `503` with `Retry-After`, or the try-again page) and then clears no cookie and fires no event.
 * No request becomes an unhandled rejection, and a half-open store cannot hang a sign-out.
 */
import { randomUUID } from "node:crypto";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
import { RedisAdapter, RedisRevocationStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { afterAll, beforeAll, expect, type Mock, test, vi } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../../packages/core/test/helpers.js";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  storeBlock,
} from "./stores.js";
import { type FaultProxy, startFaultProxy } from "./support/fault-proxy.js";

const FILE = "signout-outage.test.ts";
const COOKIE = "authjs.session-token";

/** Two app instances on one store: A through the proxy, B direct. */
interface Instances extends OpenStore {
  proxy: FaultProxy;
  a: AuthConfig;
  b: AuthConfig;
  signOutEvents: Mock<(message: unknown) => void>;
  /** Resolves once A's client reaches the store again through the proxy. */
  reachable(): Promise<void>;
}

const unusedCounts = async () => ({ users: 0, accounts: 0, sessions: 0 });

function endpoint(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const fallback = parsed.protocol.startsWith("redis") ? 6379 : 5432;
  return { host: parsed.hostname, port: Number(parsed.port) || fallback };
}

/** `url` with its host and port replaced by the proxy's. */
function viaProxy(url: string, proxy: FaultProxy): string {
  const parsed = new URL(url);
  parsed.hostname = "127.0.0.1";
  parsed.port = String(proxy.port);
  return parsed.href;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The config of one instance; `userId` is the user the credentials provider signs in. */
function instance(
  store: Pick<AuthConfig, "adapter" | "session">,
  userId: () => string,
  signOut: (message: unknown) => void,
): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    events: { signOut: (message) => signOut(message) },
    ...store,
    providers: [
      Credentials({
        credentials: { username: {} },
        authorize: ({ username }) =>
          username === "pat" ? { id: userId(), email: "pat@example.com" } : null,
      }),
    ],
  };
}

const pgDatabase: StoreKind<Instances> = {
  name: "database sessions, pg-adapter on a pg Pool, through the proxy",
  server: "PostgreSQL",
  async open() {
    const proxy = await startFaultProxy(endpoint(DATABASE_URL));
    const schema = freshSchema("signout");
    const direct = new Pool({ connectionString: DATABASE_URL, max: 4 });
    const proxied = new Pool({
      connectionString: viaProxy(DATABASE_URL, proxy),
      max: 4,
      connectionTimeoutMillis: 1000,
    });
    // Connections the proxy cuts must not crash the run.
    for (const pool of [direct, proxied]) pool.on("error", () => {});
    await migrate(direct, { schema });
    const adapterB = PostgresAdapter(direct, { schema });
    const user = await adapterB.createUser({
      id: randomUUID(),
      email: `pat-${randomUUID()}@example.com`,
      emailVerified: null,
    });
    const signOutEvents = vi.fn<(message: unknown) => void>();
    const session = { strategy: "database" as const };
    return {
      proxy,
      signOutEvents,
      a: instance(
        { adapter: PostgresAdapter(proxied, { schema }), session },
        () => user.id,
        signOutEvents,
      ),
      b: instance({ adapter: adapterB, session }, () => user.id, vi.fn()),
      adapter: adapterB,
      counts: unusedCounts,
      reachable: () =>
        until("PostgreSQL through the proxy", async () => {
          await proxied.query("SELECT 1");
          return true;
        }),
      async close() {
        proxy.set("pass");
        await direct.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await Promise.all([direct.end(), proxied.end().catch(() => {})]);
        await proxy.close();
      },
    };
  },
};

/** ioredis clients to Redis, A's through the proxy; the keys under a fresh prefix. */
async function redisPair() {
  const proxy = await startFaultProxy(endpoint(REDIS_URL));
  const prefix = `gatehouse-it:${randomUUID()}:`;
  const direct = new Redis(REDIS_URL);
  const proxied = new Redis(viaProxy(REDIS_URL, proxy));
  // Resets are expected here; ioredis reconnects by itself.
  proxied.on("error", () => {});
  return {
    proxy,
    prefix,
    direct,
    proxied,
    reachable: () =>
      until("Redis through the proxy", async () => (await proxied.ping()) === "PONG"),
    async close() {
      proxy.set("pass");
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length > 0) await direct.del(...keys);
      proxied.disconnect();
      await direct.quit();
      await proxy.close();
    },
  };
}

const redisDatabase: StoreKind<Instances> = {
  name: "database sessions, redis-adapter on ioredis, through the proxy",
  server: "Redis",
  async open() {
    const pair = await redisPair();
    const adapterB = RedisAdapter(pair.direct, { prefix: pair.prefix });
    const user = await adapterB.createUser({
      id: randomUUID(),
      email: `pat-${randomUUID()}@example.com`,
      emailVerified: null,
    });
    const signOutEvents = vi.fn<(message: unknown) => void>();
    const session = { strategy: "database" as const };
    return {
      ...pair,
      signOutEvents,
      a: instance(
        { adapter: RedisAdapter(pair.proxied, { prefix: pair.prefix }), session },
        () => user.id,
        signOutEvents,
      ),
      b: instance({ adapter: adapterB, session }, () => user.id, vi.fn()),
      adapter: adapterB,
      counts: unusedCounts,
    };
  },
};

const redisJwt: StoreKind<Instances> = {
  name: "JWT sessions, RedisRevocationStore on ioredis, through the proxy",
  server: "Redis",
  async open() {
    const pair = await redisPair();
    const userId = randomUUID();
    const signOutEvents = vi.fn<(message: unknown) => void>();
    const jwt = (client: Redis) => ({
      session: {
        strategy: "jwt" as const,
        revocation: { store: RedisRevocationStore(client, { prefix: pair.prefix }) },
      },
    });
    return {
      ...pair,
      signOutEvents,
      a: instance(jwt(pair.proxied), () => userId, signOutEvents),
      b: instance(jwt(pair.direct), () => userId, vi.fn()),
      adapter: {},
      counts: unusedCounts,
    };
  },
};

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

for (const kind of [pgDatabase, redisDatabase, redisJwt]) {
  await storeBlock(FILE, kind, (store) => {
    beforeAll(() => {
      process.on("unhandledRejection", onUnhandled);
    });
    afterAll(() => {
      process.off("unhandledRejection", onUnhandled);
      expect(unhandled).toEqual([]);
    });

    /** Signs in on A; returns A's browser and the copy of its cookie. */
    async function signedIn(): Promise<{ browser: Jar; copy: Jar }> {
      const { a } = store();
      const browser = new Jar();
      const token = await csrfToken(a, browser);
      const answer = await send(a, browser, "/auth/callback/credentials", {
        form: { csrfToken: token, username: "pat" },
      });
      expect(answer.status).toBe(302);
      expect(browser.cookies.has(COOKIE)).toBe(true);
      const copy = new Jar();
      copy.cookies.set(COOKIE, browser.cookies.get(COOKIE) ?? "");
      expect(await signedInOnB(copy)).toBe(true);
      return { browser, copy };
    }

    /** Whether the copy of the cookie signs in on instance B, which reaches the store directly. */
    async function signedInOnB(copy: Jar): Promise<boolean> {
      const jar = new Jar();
      jar.cookies = new Map(copy.cookies);
      const response = await send(store().b, jar, "/auth/session");
      expect(response.status).toBe(200);
      return (await response.json()) !== null;
    }

    async function signOut(browser: Jar, headers: Record<string, string> = {}) {
      const token = await csrfToken(store().a, browser);
      return send(store().a, browser, "/auth/signout", {
        form: { csrfToken: token, callbackUrl: "/bye" },
        headers,
      });
    }

    const sessionCookies = (response: Response) =>
      response.headers.getSetCookie().filter((c) => c.startsWith(`${COOKIE}=`));

    /** A sign-out reported as done: the cookie cleared, one event, and the copy dead on B. */
    async function expectEnded(response: Response, copy: Jar) {
      expect(response.status).toBe(302);
      expect(sessionCookies(response).join()).toMatch(/Max-Age=0/);
      expect(store().signOutEvents).toHaveBeenCalledOnce();
      expect(await signedInOnB(copy)).toBe(false);
    }

    /** A sign-out reported as failed: 503 with Retry-After, no cookie cleared, no event. */
    function expectRefused(response: Response) {
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(sessionCookies(response)).toEqual([]);
      expect(store().signOutEvents).not.toHaveBeenCalled();
    }

    /** Restores the store, then checks that a sign-out ends the session for good. */
    async function recoverAndSignOut(browser: Jar, copy: Jar) {
      store().proxy.set("pass");
      await store().reachable();
      expect(store().signOutEvents).not.toHaveBeenCalled();
      await expectEnded(await signOut(browser), copy);
    }

    const loggedTypes = () =>
      vi
        .mocked(store().a.logger?.error ?? (() => {}))
        .mock.calls.map((c) => (c[0] as { type?: string }).type);

    beforeAll(async () => {
      await store().reachable();
    });

    test("the store up: the sign-out ends the session and the copy stops working", async () => {
      store().signOutEvents.mockClear();
      const { browser, copy } = await signedIn();
      await expectEnded(await signOut(browser), copy);
    });

    test("a connection lost in the middle of the sign-out: the retry ends the session", async () => {
      store().signOutEvents.mockClear();
      const { browser, copy } = await signedIn();
      store().proxy.dropOnNextWrite();
      await expectEnded(await signOut(browser), copy);
    });

    test("a slow store: the sign-out waits for it and ends the session", async () => {
      store().signOutEvents.mockClear();
      const { browser, copy } = await signedIn();
      store().proxy.set("slow", { delayMs: 150 });
      try {
        await expectEnded(await signOut(browser), copy);
      } finally {
        store().proxy.set("pass");
      }
    });

    test("a cut store: the browser gets the 503 page, a fetch client 503 JSON; the session stays, honestly", async () => {
      store().signOutEvents.mockClear();
      const { browser, copy } = await signedIn();
      const token = browser.cookies.get(COOKIE) ?? "";
      store().proxy.set("cut");
      const page = await signOut(browser, { accept: "text/html" });
      expectRefused(page);
      expect(await page.text()).toContain("still signed in");
      const json = await signOut(browser, { "x-auth-return-redirect": "1" });
      expectRefused(json);
      expect(await json.json()).toMatchObject({
        error: "SessionStoreUnavailable",
        retryAfter: 5,
      });
      // The answers were true: the session works for the copy on the other instance.
      expect(await signedInOnB(copy)).toBe(true);
      expect(loggedTypes()).toContain("SessionStoreUnavailable");
      const logged = JSON.stringify(
        vi.mocked(store().a.logger?.error ?? (() => {})).mock.calls.map((c) => String(c[0])),
      );
      expect(logged).not.toContain(token);
      await recoverAndSignOut(browser, copy);
    });

    test("a half-open store: the sign-out answers 503 by its deadline; nothing fires late", async () => {
      store().signOutEvents.mockClear();
      const { browser, copy } = await signedIn();
      store().proxy.set("half-open");
      expectRefused(await signOut(browser, { "x-auth-return-redirect": "1" }));
      expect(await signedInOnB(copy)).toBe(true);
      await recoverAndSignOut(browser, copy);
    });

    test("the session endpoints answer 503 with Retry-After while the store is cut", async () => {
      store().signOutEvents.mockClear();
      const { browser } = await signedIn();
      store().proxy.set("cut");
      try {
        const token = await csrfToken(store().a, browser);
        const response = await send(store().a, browser, "/auth/sessions/revoke", {
          json: { csrfToken: token, all: true },
        });
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(sessionCookies(response)).toEqual([]);
        expect(store().signOutEvents).not.toHaveBeenCalled();
      } finally {
        store().proxy.set("pass");
      }
      await store().reachable();
    });
  });
}
