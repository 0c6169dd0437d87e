/**
 * The MikroORM adapter on PostgreSQL when the server kills the ORM's connections, seen through
 * `Auth()` with database sessions: a session check answers 200 (the session, or none), never a
 * 5xx or an unhandled rejection; a sign-in cut mid-statement ends on the error page; and the next
 * request works on fresh connections.
 *
 * The ORM's pool connects with its own `application_name`, so an admin connection can find its
 * backends in `pg_stat_activity` and end them with `pg_terminate_backend`. To cut a statement
 * while it really runs, the admin holds a lock the statement needs, waits until the ORM's backend
 * is waiting on it, and terminates that backend before letting go.
 */
import { randomUUID } from "node:crypto";
import type { AdapterUser } from "@gatehousejs/core/adapters";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { Client } from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, send } from "../../packages/core/test/helpers.js";
import {
  expectNoSessionCookie,
  loggedErrors,
  SESSION_COOKIE,
} from "../../packages/core/test/support/oauth-flow.js";
import {
  DATABASE_URL,
  type MikroPostgres,
  openMikroPostgres,
  type StoreKind,
  storeBlock,
} from "./stores.js";

const FILE = "connection-drop.test.ts";

const kind: StoreKind<MikroPostgres> = {
  name: "mikro-orm-adapter on the PostgreSQL server, connections killed by the server",
  server: "PostgreSQL",
  open: () => openMikroPostgres({ poolMax: 4 }),
};

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

await storeBlock(FILE, kind, (store) => {
  // Two admin connections: pg_stat_activity is a snapshot frozen for the rest of a transaction,
  // so the one that watches and kills must not be the one that holds the lock.
  const admin = new Client({ connectionString: DATABASE_URL });
  const locker = new Client({ connectionString: DATABASE_URL });
  const logger = recordingLogger();
  let config: AuthConfig;
  let user: AdapterUser;

  /** The pids of the ORM's backends, or only those waiting on a lock. */
  async function backends(which: "all" | "waiting on a lock" = "all"): Promise<number[]> {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE application_name = $1 AND ($2 = 'all' OR wait_event_type = 'Lock')`,
      [store().applicationName, which],
    );
    return rows.map((r) => r.pid);
  }

  /**
   * Terminates every backend of the ORM's pool, and waits until they have exited and the driver
   * has seen each connection close (as the pg adapter's test waits for its pool): a request sent
   * in the instant between the two still gets a dead connection, with any pool.
   */
  async function killPool(): Promise<number> {
    const { rows } = await admin.query<{ killed: boolean }>(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1",
      [store().applicationName],
    );
    await waitFor("the ORM's backends to exit", async () => (await backends()).length === 0);
    await waitFor("the driver to see its connections close", async () => {
      return store().openConnections() === 0;
    });
    return rows.filter((r) => r.killed).length;
  }

  /**
   * Runs `request` while `table` is locked by the admin; once one of the ORM's statements waits
   * on that lock, kills the ORM's backends, then releases the lock.
   */
  async function cutMidStatement<T>(table: string, request: () => Promise<T>): Promise<T> {
    await locker.query("BEGIN");
    try {
      await locker.query(`LOCK TABLE "${store().schema}"."${table}" IN ACCESS EXCLUSIVE MODE`);
      const pending = request();
      pending.catch(() => {}); // awaited below
      await waitFor(`a statement of the ORM to wait on "${table}"`, async () => {
        return (await backends("waiting on a lock")).length > 0;
      });
      expect(await killPool()).toBeGreaterThan(0);
      await locker.query("ROLLBACK");
      return await pending;
    } catch (error) {
      await locker.query("ROLLBACK").catch(() => {});
      throw error;
    }
  }

  async function signIn(jar: Jar): Promise<Response> {
    const csrf = await send(config, jar, "/auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    return send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken, username: "pat" },
    });
  }

  /** GET /auth/session, which must answer 200 whatever happened to the database. */
  async function session(jar: Jar) {
    const response = await send(config, jar, "/auth/session");
    expect(response.status).toBe(200);
    return (await response.json()) as { user?: { email?: string | null } } | null;
  }

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    await Promise.all([admin.connect(), locker.connect()]);
    user = await store().adapter.createUser!({
      id: randomUUID(),
      name: "Pat",
      email: `pat-${randomUUID()}@example.com`,
      emailVerified: null,
    });
    config = {
      secret: SECRET,
      trustHost: true,
      logger,
      adapter: store().adapter,
      session: { strategy: "database" },
      providers: [
        Credentials({
          credentials: { username: {} },
          authorize: ({ username }) => (username === "pat" ? { id: user.id } : null),
        }),
      ],
    };
  });
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled);
    await Promise.all([admin.end(), locker.end()]);
  });

  test("idle connections killed: /session answers 200 with the session, from new connections", async () => {
    const jar = new Jar();
    const signedIn = await signIn(jar);
    expect(signedIn.headers.get("location")).toBe(ORIGIN);
    expect((await session(jar))?.user?.email).toBe(user.email);

    store().driverWarnings.length = 0;
    expect(await killPool()).toBeGreaterThan(0);
    // The driver has seen the connections close, so the pool throws them away on the next
    // acquire (knex says so) and connects anew: the session is still there.
    expect((await session(jar))?.user?.email).toBe(user.email);
    expect(store().driverWarnings.join("\n")).toMatch(/^Connection Error: /);
    expect((await session(jar))?.user?.email).toBe(user.email);
    expect(unhandled).toEqual([]);
  });

  test("killed during the session check: 200 with no session, then the next check works", async () => {
    const jar = new Jar();
    await signIn(jar);
    logger.error.mockClear();

    const cut = await cutMidStatement("sessions", () => session(jar));
    expect(cut).toBeNull();
    expect(loggedErrors(logger).join("\n")).toMatch(/^SessionTokenError: .*getSessionAndUser/);

    expect((await session(jar))?.user?.email).toBe(user.email);
    expect(unhandled).toEqual([]);
  });

  test("killed during a sign-in: the error page, then a retried sign-in works", async () => {
    const jar = new Jar();
    logger.error.mockClear();
    const failed = await cutMidStatement("sessions", () => signIn(jar));
    expect(failed.status).toBe(302);
    const location = new URL(failed.headers.get("location")!);
    expect(`${location.pathname}${location.search}`).toBe("/auth/error?error=Configuration");
    expectNoSessionCookie(failed);
    expect(loggedErrors(logger).join("\n")).toMatch(/^AdapterError: Adapter method createSession/);
    expect(await session(jar)).toBeNull();

    const retried = await signIn(jar);
    expect(retried.headers.get("location")).toBe(ORIGIN);
    expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
    expect((await session(jar))?.user?.email).toBe(user.email);
    expect(unhandled).toEqual([]);
  });
});
