/**
 * Instant revocation of JWT sessions through `Auth()` and the server API, on every revocation
 * store (memory, PostgreSQL, Redis): a revoked JWT replayed afterwards is refused; revoking
 * every session while 20 session checks run leaves none alive, re-issued cookies included; a
 * revocation made before a restart (a new client and a new store on the same data) still holds;
 * "sign out everywhere else" from a session minted by Auth.js leaves no other cookie working;
 * proving an address ends the sessions of whoever held it unproven.
 */
import { randomUUID } from "node:crypto";
import { listSessions, revokeSession, revokeUserSessions } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { decode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, RevocationStore } from "@gatehousejs/core/types";
import { PostgresRevocationStore } from "@gatehousejs/pg-adapter";
import { RedisRevocationStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { expect, test } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  SECRET,
  send,
  signInAlice,
} from "../../packages/core/test/helpers.js";
import { authjsSessionCookie } from "../../packages/core/test/support/authjs-session.js";
import { SESSION_COOKIE } from "../../packages/core/test/support/oauth-flow.js";
import { unprovenAddressWorld } from "../../packages/core/test/support/unproven-address.js";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  storeBlock,
} from "./stores.js";

const FILE = "sessions-jwt.test.ts";

interface OpenRevocation extends OpenStore {
  store: RevocationStore;
  /** A new store over the same data, through a new connection: the app restarted. */
  reopen?(): Promise<RevocationStore>;
}

const unusedAdapter = {} as OpenStore["adapter"];
const noCounts = async () => ({ users: 0, accounts: 0, sessions: 0 });

const memory: StoreKind<OpenRevocation> = {
  name: "JWT sessions with the memory revocation store",
  async open() {
    const store = MemoryRevocationStore();
    return { store, adapter: unusedAdapter, counts: noCounts, close: async () => {} };
  },
};

const postgres: StoreKind<OpenRevocation> = {
  name: "JWT sessions with PostgresRevocationStore",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("jwt");
    const pools: Pool[] = [];
    const connect = async () => {
      const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
      pool.on("error", () => {});
      pools.push(pool);
      const store = PostgresRevocationStore(pool, { schema });
      await store.migrate();
      return store;
    };
    return {
      store: await connect(),
      reopen: connect,
      adapter: unusedAdapter,
      counts: noCounts,
      async close() {
        await pools[0]?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        for (const pool of pools) await pool.end();
      },
    };
  },
};

const redis: StoreKind<OpenRevocation> = {
  name: "JWT sessions with RedisRevocationStore",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const clients: Redis[] = [];
    const connect = async () => {
      const client = new Redis(REDIS_URL);
      clients.push(client);
      return RedisRevocationStore(client, { prefix });
    };
    return {
      store: await connect(),
      reopen: connect,
      adapter: unusedAdapter,
      counts: noCounts,
      async close() {
        const [first] = clients;
        if (first) {
          let cursor = "0";
          do {
            const [next, keys] = await first.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
            if (keys.length) await first.del(...keys);
            cursor = next;
          } while (cursor !== "0");
        }
        for (const client of clients) await client.quit();
      },
    };
  },
};

/** Alice signs in with credentials; JWT sessions with `store` (a new user id per config). */
function configFor(
  store: RevocationStore,
  userId = randomUUID(),
  session: { updateAge?: number } = {},
): AuthConfig {
  const base = credentialsConfig({
    session: { strategy: "jwt", ...session, revocation: { store } },
  });
  return {
    ...base,
    callbacks: {
      // Each config signs in its own user, so the tests of one store do not revoke each other.
      jwt: ({ token, user }) => (user ? { ...token, sub: userId } : token),
    },
  };
}

async function signedIn(config: AuthConfig): Promise<Jar> {
  const jar = new Jar();
  const response = await signInAlice(config, jar);
  expect(response.status).toBe(302);
  expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
  return jar;
}

/** GET /auth/session with exactly this cookie value (a replay), in a jar of its own. */
async function replay(config: AuthConfig, cookie: string) {
  const jar = new Jar();
  jar.cookies.set(SESSION_COOKIE, cookie);
  const response = await send(config, jar, "/auth/session");
  expect(response.status).toBe(200);
  return { body: (await response.json()) as { user?: { email?: string } } | null, jar, response };
}

async function currentSessionId(config: AuthConfig, jar: Jar): Promise<string> {
  const response = await send(config, jar, "/auth/sessions");
  expect(response.status).toBe(200);
  const { sessions } = (await response.json()) as { sessions: { id: string; current: boolean }[] };
  const current = sessions.find((s) => s.current);
  expect(current).toBeDefined();
  return current!.id;
}

for (const kind of [memory, postgres, redis]) {
  await storeBlock(FILE, kind, (open) => {
    test("a revoked JWT replayed after revocation is refused, and its cookie cleared", async () => {
      const userId = randomUUID();
      const config = configFor(open().store, userId);
      const [mine, other] = [await signedIn(config), await signedIn(config)];
      const stolen = mine.cookies.get(SESSION_COOKIE)!;
      expect((await replay(config, stolen)).body?.user?.email).toBe(alice.email);

      const id = await currentSessionId(config, mine);
      expect(await revokeSession(config, randomUUID(), id)).toBe(false); // not that user's
      expect((await replay(config, stolen)).body?.user?.email).toBe(alice.email);
      expect(await revokeSession(config, userId, id)).toBe(true);

      for (let i = 0; i < 3; i++) {
        const { body, jar } = await replay(config, stolen);
        expect(body).toBeNull();
        expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
      }
      // The user's other session is untouched, and is all the listing shows.
      expect((await replay(config, other.cookies.get(SESSION_COOKIE)!)).body?.user?.email).toBe(
        alice.email,
      );
      const listed = await listSessions(config, userId);
      expect(listed.map((s) => s.id)).toEqual([await currentSessionId(config, other)]);
    });

    test("sign out everywhere else from an Auth.js session: no other cookie works, the caller stays with a sid", async () => {
      const userId = randomUUID();
      const config = configFor(open().store, userId);
      const user = { id: userId, email: alice.email, name: alice.name };
      const caller = new Jar();
      caller.cookies.set(SESSION_COOKIE, await authjsSessionCookie(user));
      const stolen = await authjsSessionCookie(user);
      const ours = (await signedIn(config)).cookies.get(SESSION_COOKIE)!;
      expect((await replay(config, stolen)).body?.user?.email).toBe(alice.email);

      const csrf = await csrfToken(config, caller);
      const response = await send(config, caller, "/auth/sessions/revoke", {
        json: { others: true, csrfToken: csrf },
      });
      expect(response.status).toBe(200);
      expect((await replay(config, stolen)).body).toBeNull();
      expect((await replay(config, ours)).body).toBeNull();
      const kept = caller.cookies.get(SESSION_COOKIE)!;
      expect((await replay(config, kept)).body?.user?.email).toBe(alice.email);
      const token = await decode({ token: kept, secret: SECRET, salt: SESSION_COOKIE });
      expect(token?.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(await currentSessionId(config, caller)).toBe(token?.sid);
    });

    test("proving an address by link ends the JWT session of whoever signed up with it", async () => {
      const owner = `owner-${randomUUID()}@corp.example`;
      const w = unprovenAddressWorld({
        adapter: MemoryAdapter(),
        session: { strategy: "jwt", revocation: { store: open().store } },
      });
      await w.signUp(owner, "chosen-by-someone-else");
      const intruder = await w.passwordSignIn(owner, "chosen-by-someone-else");
      expect(await w.signedInAs(intruder)).toBe(owner);
      const { response, jar } = await w.linkSignIn(owner);
      expect(response.headers.get("location")).not.toContain("error=");
      expect(await w.signedInAs(intruder)).toBeNull();
      expect(await w.signedInAs(jar)).toBe(owner);
    });

    test("POST /sessions/revoke {id} from one browser signs the other out on its next request", async () => {
      const config = configFor(open().store);
      const [first, second] = [await signedIn(config), await signedIn(config)];
      const secondId = await currentSessionId(config, second);
      const csrf = await csrfToken(config, first);
      const response = await send(config, first, "/auth/sessions/revoke", {
        json: { id: secondId, csrfToken: csrf },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ revoked: 1 });
      expect((await replay(config, second.cookies.get(SESSION_COOKIE)!)).body).toBeNull();
      expect((await replay(config, first.cookies.get(SESSION_COOKIE)!)).body).not.toBeNull();
    });

    test("revoke-all while 20 session checks run leaves no session alive, re-issued cookies included", async () => {
      const userId = randomUUID();
      // updateAge 0: every check re-issues the cookie, the hardest case for a revocation.
      const config = configFor(open().store, userId, { updateAge: 0 });
      const jars = await Promise.all(Array.from({ length: 20 }, () => signedIn(config)));
      const issued = jars.map((jar) => jar.cookies.get(SESSION_COOKIE)!);

      const [, ...checks] = await Promise.all([
        revokeUserSessions(config, userId),
        ...jars.map((jar) => send(config, jar, "/auth/session")),
      ]);
      for (const check of checks) expect(check.status).toBe(200);

      // Every cookie ever issued, the originals and whatever the racing checks re-issued.
      const cookies = [...issued, ...jars.flatMap((jar) => jar.cookies.get(SESSION_COOKIE) ?? [])];
      const answers = await Promise.all(cookies.map((cookie) => replay(config, cookie)));
      expect(answers.map((a) => a.body)).toEqual(cookies.map(() => null));
      expect(await listSessions(config, userId)).toEqual([]);

      // A sign-in after the revocation works (from the next second on: epochs are in seconds).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await signedIn(config);
      expect((await replay(config, again.cookies.get(SESSION_COOKIE)!)).body?.user?.email).toBe(
        alice.email,
      );
    });

    if (kind.server) {
      test("a revocation made before a restart still holds after it", async () => {
        const { store, reopen } = open();
        const userId = randomUUID();
        const config = configFor(store, userId);
        const [revoked, spared] = [await signedIn(config), await signedIn(config)];
        const sparedId = await currentSessionId(config, spared);
        expect(await revokeUserSessions(config, userId, { except: sparedId })).toBeGreaterThan(0);

        const restarted = configFor(await reopen!(), userId);
        expect((await replay(restarted, revoked.cookies.get(SESSION_COOKIE)!)).body).toBeNull();
        expect(
          (await replay(restarted, spared.cookies.get(SESSION_COOKIE)!)).body?.user?.email,
        ).toBe(alice.email);
        expect((await listSessions(restarted, userId)).map((s) => s.id)).toEqual([sparedId]);
      });
    }
  });
}
