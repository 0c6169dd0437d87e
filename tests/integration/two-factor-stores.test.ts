/**
 * Two-factor sign-in on every store (memory, pg-adapter on the server and on PGlite, redis-adapter,
 * mikro-orm-adapter on PostgreSQL and SQLite), served over real HTTP: enrolment and a sign-in held
 * at the challenge until the right code; the same code from 20 browsers at once and one backup
 * code from two at once each open one session (the adapter's compare-and-set on the account row);
 * a burst of wrong codes at one challenge gets `maxAttempts` checks and no more, the try counted
 * before the check in the rate-limit store; the operator's reset.
 *
 * Where the rate-limit store is shared (PostgreSQL and Redis), the app runs as two instances, each
 * with its own connection to that store, and every burst is spread over both: had each instance
 * counted alone, a burst would get twice the checks. PGlite counts in a PostgreSQL rate-limit store
 * of its own; memory and SQLite in the default memory store.
 */

import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Password from "@gatehousejs/core/providers/password";
import { MemoryRateLimitStore } from "@gatehousejs/core/rate-limit/memory";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import TwoFactor, { resetTwoFactor } from "@gatehousejs/core/two-factor";
import type { AuthConfig, RateLimitStore } from "@gatehousejs/core/types";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { totpCode, totpStep } from "../../packages/core/src/lib/features/two-factor/totp.js";
import { Jar, recordingLogger, SECRET } from "../../packages/core/test/helpers.js";
import { FAST_HASH } from "../../packages/core/test/password-world.js";
import { startServer, type TestServer } from "../browser/server.js";
import { provenUser } from "./password-http.js";
import {
  allStores,
  DATABASE_URL,
  freshSchema,
  mikroPostgres,
  pgLite,
  pgServer,
  REDIS_URL,
  redis,
  type StoreKind,
  storeBlock,
} from "./stores.js";

const FILE = "two-factor-stores.test.ts";
const PASSWORD = "correct horse battery staple";
const ROW = "gatehouse.totp";
const SESSION = "authjs.session-token";
const MAX_ATTEMPTS = 5;
const BROWSERS = 20;
const BURST = 12;

const memory: StoreKind = {
  name: "memory adapter",
  async open() {
    return {
      adapter: MemoryAdapter(),
      counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
      close: async () => {},
    };
  },
};

/** The rate-limit store of each app instance, and how to remove it. */
interface Limits {
  name: string;
  /** One per app instance; two over one shared store, or one. */
  stores: RateLimitStore[];
  close(): Promise<void>;
}

async function limitsFor(kind: StoreKind): Promise<Limits> {
  if (kind === pgServer || kind === mikroPostgres) {
    const schema = freshSchema("tflimits");
    const pools = [0, 1].map(() => new Pool({ connectionString: DATABASE_URL, max: 5 }));
    for (const pool of pools) pool.on("error", () => {});
    const stores = pools.map((pool) => PostgresRateLimitStore(pool, { schema }));
    await stores[0]!.migrate();
    return {
      name: "PostgresRateLimitStore, two instances",
      stores,
      async close() {
        await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await Promise.all(pools.map((pool) => pool.end()));
      },
    };
  }
  if (kind === redis) {
    const prefix = `gatehouse-it:tflimits-${randomBytes(6).toString("hex")}:`;
    const clients = [0, 1].map(() => new Redis(REDIS_URL));
    return {
      name: "RedisRateLimitStore, two instances",
      stores: clients.map((client) => RedisRateLimitStore(client, { prefix })),
      async close() {
        let cursor = "0";
        do {
          const [next, keys] = await clients[0]!.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
          if (keys.length) await clients[0]!.del(...keys);
          cursor = next;
        } while (cursor !== "0");
        await Promise.all(clients.map((client) => client.quit()));
      },
    };
  }
  if (kind === pgLite) {
    const db = new PGlite();
    const store = PostgresRateLimitStore(db);
    await store.migrate();
    return { name: "PostgresRateLimitStore on PGlite", stores: [store], close: () => db.close() };
  }
  return { name: "MemoryRateLimitStore", stores: [MemoryRateLimitStore()], close: async () => {} };
}

/** A rate-limit store that also counts its `hit`s (the tries this instance counted). */
function countingHits(store: RateLimitStore) {
  let hits = 0;
  const counted: RateLimitStore = {
    hit(key, windowMs, options) {
      hits++;
      return store.hit(key, windowMs, options);
    },
    peek: (key) => store.peek(key),
    reset: (key) => store.reset(key),
  };
  return { store: counted, hits: () => hits };
}

/** One app instance: its server, configuration, log and counted tries. */
interface Instance {
  /** Where the tests connect. */
  base: string;
  /** The origin the app names in its redirects. */
  origin: string;
  config: AuthConfig;
  logger: ReturnType<typeof recordingLogger>;
  hits: () => number;
  securityLog: ReturnType<typeof MemorySecurityEventStore>;
  server: TestServer;
}

async function startInstance(adapter: AuthConfig["adapter"], limits: RateLimitStore) {
  const logger = recordingLogger();
  const counting = countingHits(limits);
  const securityLog = MemorySecurityEventStore();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    session: { strategy: "database" },
    securityLog: { store: securityLog },
    // The sign-in limits are off (20 browsers sign in at once from one address); the two-factor
    // tries are counted in this store whatever the limits say.
    rateLimit: { store: counting.store, credentials: false, email: false },
    twoFactor: TwoFactor({ maxAttempts: MAX_ATTEMPTS }),
    providers: [Password({ hash: FAST_HASH, sendEmail: () => {} })],
  };
  const server = await startServer(config);
  // The server names itself `localhost`; connect by address, whatever `localhost` resolves to.
  const base = server.origin.replace("//localhost:", "//127.0.0.1:");
  return {
    base,
    origin: server.origin,
    config,
    logger,
    hits: counting.hits,
    securityLog,
    server,
  } satisfies Instance;
}

/** An HTTP answer as the tests look at it, body read once. */
interface Answer {
  status: number;
  location: string | null;
  /** The `error` of a JSON refusal. */
  error: string | undefined;
  json: Record<string, unknown> | null;
  /** Whether the answer set a session cookie. */
  session: boolean;
}

/** A browser: a cookie jar over `fetch`, speaking to any instance of the app. */
class Browser {
  readonly jar = new Jar();

  async request(
    base: string,
    path: string,
    init: { form?: Record<string, string>; json?: Record<string, unknown> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { cookie: this.jar.header() };
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    } else if (init.json) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    }
    const response = this.jar.take(
      await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers,
        body,
        redirect: "manual",
      }),
    );
    const text = await response.text();
    let json: Record<string, unknown> | null = null;
    if ((response.headers.get("content-type") ?? "").includes("application/json")) {
      json = JSON.parse(text) as Record<string, unknown> | null;
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      error: typeof json?.["error"] === "string" ? json["error"] : undefined,
      json,
      session: response.headers
        .getSetCookie()
        .some((c) => c.startsWith(`${SESSION}=`) && !/Max-Age=0/i.test(c)),
    };
  }

  async csrf(base: string): Promise<string> {
    const answer = await this.request(base, "/auth/csrf");
    return answer.json?.["csrfToken"] as string;
  }

  /** POSTs JSON with this browser's CSRF token. */
  async post(base: string, path: string, body: Record<string, unknown> = {}): Promise<Answer> {
    return this.request(base, path, { json: { csrfToken: await this.csrf(base), ...body } });
  }

  async signIn(base: string, email: string): Promise<Answer> {
    const csrfToken = await this.csrf(base);
    return this.request(base, "/auth/callback/password", {
      form: { csrfToken, email, password: PASSWORD },
    });
  }

  async signedInAs(base: string): Promise<string | null> {
    const answer = await this.request(base, "/auth/session");
    expect(answer.status).toBe(200);
    const session = answer.json as { user?: { email?: string } } | null;
    return session?.user?.email ?? null;
  }
}

const kinds: StoreKind[] = [memory, ...allStores];

for (const kind of kinds) {
  await storeBlock(FILE, kind, (store) => {
    const tag = randomBytes(4).toString("hex");
    const at = (name: string) => `${name}-${tag}@example.com`;
    let limits: Limits;
    let apps: Instance[];
    /** The instance that answers the `i`th request of a burst. */
    const spread = (i: number) => apps[i % apps.length]!.base;
    const originOf = (base: string) => apps.find((app) => app.base === base)!.origin;

    beforeAll(async () => {
      limits = await limitsFor(kind);
      apps = [];
      for (const shared of limits.stores) {
        apps.push(await startInstance(store().adapter, shared));
      }
    });
    afterAll(async () => {
      await Promise.all((apps ?? []).map((app) => app.server.close()));
      await limits?.close();
    });

    const row = async (userId: string): Promise<AdapterAccount | null> =>
      store().adapter.getAccount!(userId, ROW);

    /**
     * A new user enrolled over HTTP: signed in with the password, the secret from POST
     * /two-factor/enroll, turned on by its first code; signed out after.
     */
    async function enrolled(name: string) {
      const email = at(name);
      const userId = await provenUser(store().adapter, email, PASSWORD);
      const base = apps[0]!.base;
      const browser = new Browser();
      const first = await browser.signIn(base, email);
      expect(first.status).toBe(302);
      expect(first.location, "no second factor yet: the password signs in").toBe(originOf(base));
      expect(first.session).toBe(true);

      const started = await browser.post(base, "/auth/two-factor/enroll");
      expect(started.status).toBe(200);
      const secret = started.json?.["secret"] as string;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(started.json?.["uri"]).toMatch(/^otpauth:\/\/totp\//);
      const pending = await row(userId);
      expect(pending?.token_type).toBe("pending");

      const step = totpStep();
      const confirmed = await browser.post(base, "/auth/two-factor/confirm", {
        code: await totpCode(secret, step),
      });
      expect(confirmed.status).toBe(200);
      const backupCodes = confirmed.json?.["backupCodes"] as string[];
      expect(backupCodes).toHaveLength(10);
      const enabled = await row(userId);
      expect(enabled?.token_type).toBe("enabled");
      // The step spent by the confirmation: it does not open a sign-in.
      const spent = enabled?.expires_at as number;
      expect(spent).toBe(step);

      const signedOut = await browser.request(base, "/auth/signout", {
        form: { csrfToken: await browser.csrf(base) },
      });
      expect(signedOut.status).toBe(302);
      expect(await browser.signedInAs(base)).toBeNull();
      return { email, userId, secret, backupCodes, spent };
    }

    /** A new browser past the password, held at the challenge (on instance `base`). */
    async function challenged(email: string, base = apps[0]!.base) {
      const browser = new Browser();
      const answer = await browser.signIn(base, email);
      expect(answer.status).toBe(302);
      expect(answer.location).toBe(`${originOf(base)}/auth/two-factor/challenge`);
      expect(answer.session, "no session before the second factor").toBe(false);
      expect(browser.jar.cookies.has(SESSION)).toBe(false);
      return browser;
    }

    /** The secret and backup codes, in every spelling, must not be in `text`. */
    function expectNoPlainSecret(text: string, secret: string, backupCodes: string[]) {
      const needles = [secret, secret.toLowerCase()];
      for (const code of backupCodes) {
        const bare = code.replace("-", "");
        needles.push(code, code.toUpperCase(), bare, bare.toUpperCase());
      }
      for (const needle of needles) {
        // Never print the value: only that one was found.
        expect(text.includes(needle), "a plain secret or backup code in the row").toBe(false);
      }
    }

    test("enrolled over HTTP: the password stops at the challenge, the right code gives the session; the row holds no plain secret or backup code", async () => {
      const { email, userId, secret, backupCodes, spent } = await enrolled("plain");
      const before = await row(userId);
      expectNoPlainSecret(JSON.stringify(before), secret, backupCodes);
      expect(before?.scope).toBe("SHA-1 6 30");
      expect(String(before?.id_token).split(" ")).toHaveLength(10);

      const base = apps[0]!.base;
      const older = await challenged(email);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const browser = await challenged(email);
      expect(await browser.signedInAs(base)).toBeNull();
      const page = await browser.request(base, "/auth/two-factor/challenge");
      expect(page.status).toBe(200);

      const done = await browser.post(base, "/auth/two-factor/challenge", {
        code: await totpCode(secret, spent + 1),
      });
      expect(done.status).toBe(302);
      expect(done.session).toBe(true);
      expect(await browser.signedInAs(base)).toBe(email);

      // The write kept every column it did not change and stored the ones it did.
      const after = await row(userId);
      expect(after?.token_type).toBe("enabled");
      expect(after?.scope).toBe("SHA-1 6 30");
      expect(after?.id_token).toBe(before?.id_token);
      expect(after?.access_token).toBe(before?.access_token);
      expect(after?.expires_at).toBe(spent + 1);
      expect(after?.refresh_token).not.toBe(before?.refresh_token);
      // When the user finished a challenge, which ends older ones.
      expect(after?.session_state).toBeTruthy();
      expect(after?.session_state).not.toEqual(before?.session_state);
      expectNoPlainSecret(JSON.stringify(after), secret, backupCodes);

      // The challenge issued before the finished one is over (read from `session_state`), even
      // with a good backup code.
      const late = await older.post(base, "/auth/two-factor/challenge", {
        backupCode: backupCodes[0],
      });
      expect(late.status).toBe(400);
      expect(late.error).toBe("TwoFactorChallengeExpired");
      expect(await older.signedInAs(base)).toBeNull();
      expect(String((await row(userId))?.id_token).split(" ")).toHaveLength(10);
    });

    test(`the same right code from ${BROWSERS} challenged browsers at once opens exactly one session`, async () => {
      const { email, userId, secret, spent } = await enrolled("twenty");
      const browsers = await Promise.all(
        Array.from({ length: BROWSERS }, (_, i) => challenged(email, spread(i))),
      );
      const code = await totpCode(secret, spent + 1);
      const tokens = await Promise.all(browsers.map((b, i) => b.csrf(spread(i))));
      const answers = await Promise.all(
        browsers.map((b, i) =>
          b.request(spread(i), "/auth/two-factor/challenge", {
            json: { csrfToken: tokens[i], code },
          }),
        ),
      );
      const winners = answers.filter((a) => a.status === 302 && a.session);
      expect(winners, "sessions opened by one code").toHaveLength(1);
      const losers = answers.filter((a) => !a.session);
      expect(losers).toHaveLength(BROWSERS - 1);
      for (const lost of losers) {
        expect(lost.status).toBe(400);
        expect(["WrongCode", "TwoFactorChallengeExpired"]).toContain(lost.error);
      }
      const signedIn = await Promise.all(browsers.map((b, i) => b.signedInAs(spread(i))));
      expect(signedIn.filter((e) => e === email)).toHaveLength(1);
      expect(signedIn.filter((e) => e === null)).toHaveLength(BROWSERS - 1);
      expect((await row(userId))?.expires_at).toBe(spent + 1);
    });

    test(`a burst of ${BURST} wrong codes at one challenge: ${MAX_ATTEMPTS} are checked, the rest end it; each try counted first`, async () => {
      const { email, secret, spent } = await enrolled("burst");
      const browser = await challenged(email);
      const right = await totpCode(secret, spent + 1);
      const wrong = Array.from({ length: BURST }, (_, i) =>
        String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, "0"),
      );
      expect(wrong).not.toContain(right);
      const csrfToken = await browser.csrf(apps[0]!.base);
      const hitsBefore = apps.map((app) => app.hits());
      const answers = await Promise.all(
        wrong.map((code, i) =>
          browser.request(spread(i), "/auth/two-factor/challenge", {
            json: { csrfToken, code },
          }),
        ),
      );
      const errors = answers.map((a) => a.error);
      expect(answers.map((a) => a.status)).toEqual(wrong.map(() => 400));
      expect(
        errors.filter((e) => e === "WrongCode"),
        "codes checked",
      ).toHaveLength(MAX_ATTEMPTS);
      expect(errors.filter((e) => e === "TwoFactorChallengeExpired")).toHaveLength(
        BURST - MAX_ATTEMPTS,
      );
      // Every instance counted the tries it answered, in the store they share.
      apps.forEach((app, i) => {
        expect(app.hits() - hitsBefore[i]!, `tries counted by instance ${i}`).toBeGreaterThan(0);
      });
      const counted = apps.reduce((sum, app, i) => sum + app.hits() - hitsBefore[i]!, 0);
      expect(counted).toBeGreaterThanOrEqual(BURST);

      // The right code does not revive this challenge.
      const late = await browser.post(apps[0]!.base, "/auth/two-factor/challenge", { code: right });
      expect(late.status).toBe(400);
      expect(late.error).toBe("TwoFactorChallengeExpired");
      expect(await browser.signedInAs(apps[0]!.base)).toBeNull();
      // The owner, in a browser of their own, is not locked out.
      const own = await challenged(email);
      const done = await own.post(apps[0]!.base, "/auth/two-factor/challenge", { code: right });
      expect(done.session).toBe(true);
      expect(await own.signedInAs(apps[0]!.base)).toBe(email);
    });

    test("one backup code sent by two browsers at once opens one session and is gone", async () => {
      const { email, userId, backupCodes } = await enrolled("backup");
      const browsers = await Promise.all([
        challenged(email, spread(0)),
        challenged(email, spread(1)),
      ]);
      const tokens = await Promise.all(browsers.map((b, i) => b.csrf(spread(i))));
      const answers = await Promise.all(
        browsers.map((b, i) =>
          b.request(spread(i), "/auth/two-factor/challenge", {
            json: { csrfToken: tokens[i], backupCode: backupCodes[4] },
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 302 && a.session)).toHaveLength(1);
      const lost = answers.find((a) => !a.session);
      expect(lost?.status).toBe(400);
      expect(["WrongCode", "TwoFactorChallengeExpired"]).toContain(lost?.error);
      const winner = browsers[answers.findIndex((a) => a.session)]!;
      const base = spread(answers.findIndex((a) => a.session));
      expect(await winner.signedInAs(base)).toBe(email);
      expect(String((await row(userId))?.id_token).split(" ")).toHaveLength(9);

      // Spent: the same code in a third browser opens nothing.
      const third = await challenged(email);
      const again = await third.post(apps[0]!.base, "/auth/two-factor/challenge", {
        backupCode: backupCodes[4],
      });
      expect(again.status).toBe(400);
      expect(again.error).toBe("WrongCode");
      expect(again.session).toBe(false);
    });

    test("resetTwoFactor clears the second factor in the store; the password alone signs in", async () => {
      const { email, userId, secret, backupCodes } = await enrolled("reset");
      expect(await resetTwoFactor(apps[0]!.config, userId)).toBe(true);
      const cleared = await row(userId);
      expect(cleared?.access_token ?? "").toBe("");
      expect(cleared?.token_type).toBe("pending");
      expect(cleared?.id_token ?? "").toBe("");
      expectNoPlainSecret(JSON.stringify(cleared), secret, backupCodes);
      expect(await resetTwoFactor(apps[0]!.config, userId)).toBe(false);
      const logged = await apps[0]!.securityLog.list(userId, { limit: 20 });
      expect(logged.filter((e) => e.type === "twoFactorReset")).toHaveLength(1);

      const browser = new Browser();
      const answer = await browser.signIn(apps[0]!.base, email);
      expect(answer.location).toBe(apps[0]!.origin);
      expect(answer.session).toBe(true);
      expect(await browser.signedInAs(apps[0]!.base)).toBe(email);
    });

    // A reset clears the old secret's last step (`expires_at: null`): the new secret's code of
    // that same step is not refused.
    test("after a reset, the new secret's code of the old secret's last step turns it on", async () => {
      const { email, userId, spent } = await enrolled("reenrol");
      expect(await resetTwoFactor(apps[0]!.config, userId)).toBe(true);
      const base = apps[0]!.base;
      const browser = new Browser();
      expect((await browser.signIn(base, email)).session).toBe(true);
      const started = await browser.post(base, "/auth/two-factor/enroll");
      const secret = started.json?.["secret"] as string;
      // Within the window still: `enrolled` took well under one 30-second step.
      expect(totpStep() - spent).toBeLessThanOrEqual(1);
      const confirmed = await browser.post(base, "/auth/two-factor/confirm", {
        code: await totpCode(secret, spent),
      });
      expect(confirmed.status).toBe(200);
    });

    test("no request was answered with a server error", () => {
      for (const app of apps) expect(app.logger.error).not.toHaveBeenCalled();
    });
  });
}
