/**
 * A database connection that the server kills in the middle of a request, seen through
 * `Auth()`: the request ends in the error page (or an empty session), never a 5xx or an
 * unhandled error, and the next request works on a fresh connection.
 */
import { randomUUID } from "node:crypto";
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { Client, Pool } from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { migrate, PostgresAdapter, type Queryable } from "../../src/index.js";
import { DATABASE_URL, freshAppName, freshSchemaName } from "./server.js";

const ORIGIN = "http://localhost:3000";

async function waitFor(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A browser in miniature: keeps cookies between `Auth()` calls. */
function browser(config: AuthConfig) {
  const jar = new Map<string, string>();
  return async (path: string, form?: Record<string, string>): Promise<Response> => {
    const headers = new Headers();
    if (jar.size) headers.set("cookie", [...jar].map(([n, v]) => `${n}=${v}`).join("; "));
    if (form) headers.set("content-type", "application/x-www-form-urlencoded");
    const request = new Request(`${ORIGIN}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form) : null,
    });
    const response = await Auth(request, config);
    for (const raw of response.headers.getSetCookie()) {
      const pair = raw.split(";")[0]!;
      const eq = pair.indexOf("=");
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (value === "" || /max-age=0/i.test(raw)) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}

export function connectionDropCases(): void {
  describe("a connection that drops mid-request", () => {
    const schema = freshSchemaName();
    const appName = freshAppName();
    const pool = new Pool({ connectionString: DATABASE_URL, application_name: appName, max: 4 });
    const poolErrors: unknown[] = [];
    // Without this listener, the server killing an idle pooled connection crashes the process.
    pool.on("error", (error) => poolErrors.push(error));
    const admin = new Client({ connectionString: DATABASE_URL });

    /** Kills every connection of the pool on the server, and waits until they are gone. */
    async function terminatePool(): Promise<void> {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
        [appName],
      );
      await waitFor("the pool's backends to exit", async () => {
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
          [appName],
        );
        return rows[0].n === 0;
      });
    }

    // The adapter's client: normally the pool. When armed, the next statement gets a pooled
    // connection that the server kills before the statement reaches it, as in a failover.
    let dropNext = false;
    const client: Queryable = {
      async query(text, params) {
        if (!dropNext) return pool.query(text, params);
        dropNext = false;
        const connection = await pool.connect();
        connection.on("error", () => {}); // the server's goodbye, while checked out
        try {
          await terminatePool();
          return await connection.query(text, params);
        } finally {
          connection.release(true); // never back into the pool
        }
      },
    };

    const errors: unknown[] = [];
    const userId = randomUUID();
    const config: AuthConfig = {
      secret: "x".repeat(32),
      trustHost: true,
      adapter: PostgresAdapter(client, { schema }),
      logger: { error: (e) => errors.push(e), warn: () => {}, debug: () => {} },
      providers: [
        Credentials({
          credentials: { username: {} },
          authorize: ({ username }) =>
            username === "pat" ? { id: userId, name: "Pat", email: `${userId}@example.com` } : null,
        }),
      ],
    };

    beforeAll(async () => {
      await admin.connect();
      await migrate(admin, { schema });
      await PostgresAdapter(admin, { schema }).createUser({
        id: userId,
        name: "Pat",
        email: `${userId}@example.com`,
        emailVerified: null,
      });
    });
    afterAll(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
      await pool.end();
    });

    async function signIn(send: ReturnType<typeof browser>): Promise<Response> {
      const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string };
      return send("/auth/callback/credentials", { csrfToken, username: "pat" });
    }
    const sessionOf = async (response: Response) => {
      expect(response.status).toBe(200);
      return (await response.json()) as { user?: { email?: string } } | null;
    };

    test("during the session check: 200 with no session, then the next check works", async () => {
      const send = browser(config);
      const signedIn = await signIn(send);
      expect(signedIn.status).toBe(302);
      expect(new URL(signedIn.headers.get("location")!).pathname).toBe("/");
      expect((await sessionOf(await send("/auth/session")))?.user?.email).toBe(
        `${userId}@example.com`,
      );

      dropNext = true;
      errors.length = 0;
      expect(await sessionOf(await send("/auth/session"))).toBeNull();
      expect(errors).toHaveLength(1);
      await waitFor("the pool to discard its dead connections", () => pool.totalCount === 0);

      expect((await sessionOf(await send("/auth/session")))?.user?.email).toBe(
        `${userId}@example.com`,
      );
    });

    test("during a sign-in: the error page, then the next sign-in works", async () => {
      const send = browser(config);
      const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string };
      dropNext = true;
      const failed = await send("/auth/callback/credentials", { csrfToken, username: "pat" });
      expect(failed.status).toBe(302);
      const location = new URL(failed.headers.get("location")!);
      expect(location.pathname).toBe("/auth/error");
      expect(await sessionOf(await send("/auth/session"))).toBeNull();
      await waitFor("the pool to discard its dead connections", () => pool.totalCount === 0);

      const retried = await signIn(send);
      expect(new URL(retried.headers.get("location")!).pathname).toBe("/");
      expect((await sessionOf(await send("/auth/session")))?.user?.email).toBe(
        `${userId}@example.com`,
      );
    });
  });
}
