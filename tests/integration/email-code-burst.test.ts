/**
 * Guessing a sign-in code in bursts, over real HTTP: an attacker asks for a code for the
 * victim's address in their own browser, then sends 200 guesses at once, with the right code
 * planted among them. Every try is counted in the store before the code is compared, so at most
 * 5 guesses of a burst are ever checked (counted from the server's log lines), the right code
 * signs in only if it was one of those 5, and never after the 5th try.
 *
 * Stores: the memory adapter; the memory adapter stripped of `countVerificationTokenTry` (an
 * adapter written for Auth.js, whose tries go to the rate-limit store); and, as two app
 * instances behind one address (two servers, two connections, each with its own memory
 * rate-limit store), pg-adapter on the PostgreSQL server and redis-adapter on the Redis server.
 */
import { randomUUID } from "node:crypto";
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig, LoggerInstance } from "@gatehousejs/core/types";
import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
import { RedisAdapter } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { expect, test } from "vitest";
import { Jar, SECRET } from "../../packages/core/test/helpers.js";
import { startServer, type TestServer } from "../browser/server.js";
import {
  DATABASE_URL,
  freshSchema,
  type OpenStore,
  REDIS_URL,
  type StoreKind,
  storeBlock,
} from "./stores.js";

const FILE = "email-code-burst.test.ts";
const BURST = 200;
const MAX_TRIES = 5;

/** The server's log lines that mean "this guess was compared with the code". */
const CHECKED = new Set([
  "The sign-in code is wrong",
  "The last wrong sign-in code invalidated it",
  "The sign-in code was used, invalidated or expired",
]);

/** An app instance's store: one adapter per instance, all over the same data. */
interface BurstStore extends OpenStore {
  /** The adapters of the app instances (one or two), each over its own connection. */
  adapters: Adapter[];
}

const one = (adapter: Adapter): BurstStore => ({
  adapter,
  adapters: [adapter],
  counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
  close: async () => {},
});

const memory: StoreKind<BurstStore> = {
  name: "memory adapter",
  open: async () => one(MemoryAdapter()),
};

const memoryWithoutTryCount: StoreKind<BurstStore> = {
  name: "memory adapter without countVerificationTokenTry (tries in the rate-limit store)",
  async open() {
    const { countVerificationTokenTry: _, ...adapter } = MemoryAdapter();
    return one(adapter);
  },
};

const postgres: StoreKind<BurstStore> = {
  name: "pg-adapter on the PostgreSQL server, two app instances",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("burst");
    const pools = [0, 1].map(() => new Pool({ connectionString: DATABASE_URL, max: 10 }));
    for (const pool of pools) pool.on("error", () => {});
    await migrate(pools[0]!, { schema });
    const adapters = pools.map((pool) => PostgresAdapter(pool, { schema }));
    return {
      ...one(adapters[0]!),
      adapters,
      async close() {
        await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await Promise.all(pools.map((pool) => pool.end()));
      },
    };
  },
};

const redis: StoreKind<BurstStore> = {
  name: "redis-adapter on the Redis server, two app instances",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-burst:${randomUUID()}:`;
    const clients = [0, 1].map(() => new Redis(REDIS_URL));
    const adapters = clients.map((client) => RedisAdapter(client, { prefix }));
    return {
      ...one(adapters[0]!),
      adapters,
      async close() {
        const keys = await clients[0]!.keys(`${prefix}*`);
        if (keys.length) await clients[0]!.del(...keys);
        await Promise.all(clients.map((client) => client.quit()));
      },
    };
  },
};

/** A logger that keeps the message of every warning. */
function messageLogger(messages: string[]): LoggerInstance {
  return {
    error: () => {},
    debug: () => {},
    warn: (_code, error) => {
      messages.push(error instanceof Error ? error.message : String(error));
    },
  };
}

/** The app: one real HTTP server per adapter, sharing the mailbox and the log. */
async function startApp(adapters: Adapter[]) {
  const mails: { identifier: string; code?: string }[] = [];
  const messages: string[] = [];
  const servers: TestServer[] = [];
  for (const adapter of adapters) {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: messageLogger(messages),
      adapter,
      session: { strategy: "database" },
      providers: [
        Email({
          code: true,
          sendVerificationRequest: ({ identifier, code }) => {
            mails.push({ identifier, code });
          },
        }),
      ],
    };
    servers.push(await startServer(config));
  }
  // The servers name themselves `localhost`; connect by address, whatever `localhost` resolves to.
  const bases = servers.map((s) => s.origin.replace("//localhost:", "//127.0.0.1:"));
  return {
    mails,
    messages,
    bases,
    close: () => Promise.all(servers.map((s) => s.close())),
  };
}

interface Answer {
  status: number;
  location: string;
  signedIn: boolean;
}

async function post(base: string, jar: Jar, path: string, form: Record<string, string>) {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: new URLSearchParams(form),
  });
}

/** The attacker's browser asks for a code for `email`; returns the jar, its CSRF token, the code. */
async function askForCode(app: Awaited<ReturnType<typeof startApp>>, email: string) {
  const jar = new Jar();
  const base = app.bases[0]!;
  const csrf = jar.take(await fetch(`${base}/auth/csrf`, { headers: { cookie: jar.header() } }));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const asked = jar.take(await post(base, jar, "/auth/signin/email", { csrfToken, email }));
  expect(asked.status).toBe(302);
  const code = app.mails.findLast((m) => m.identifier === email)?.code;
  expect(code).toMatch(/^\d{8}$/);
  return { jar, csrfToken, code: code! };
}

/** Every guess at once, spread over the app's instances; the jar is not updated by the answers. */
async function burst(
  app: Awaited<ReturnType<typeof startApp>>,
  browser: { jar: Jar; csrfToken: string },
  guesses: string[],
): Promise<Answer[]> {
  return Promise.all(
    guesses.map(async (code, i) => {
      const base = app.bases[i % app.bases.length]!;
      const response = await post(base, browser.jar, "/auth/callback/email", {
        csrfToken: browser.csrfToken,
        code,
      });
      await response.arrayBuffer();
      const sessionCookie = response.headers
        .getSetCookie()
        .some((c) => /session-token=[^;]+/.test(c) && !/Max-Age=0/i.test(c));
      return {
        status: response.status,
        location: response.headers.get("location") ?? "",
        signedIn: sessionCookie,
      };
    }),
  );
}

/** `count` distinct wrong 8-digit codes. */
function wrongCodes(right: string, count: number): string[] {
  const codes: string[] = [];
  for (let n = 0; codes.length < count; n++) {
    const code = String(n).padStart(8, "0");
    if (code !== right) codes.push(code);
  }
  return codes;
}

/** What the server compared: log lines since `from` that mean a check, plus sign-ins. */
function checkedSince(messages: string[], from: number, answers: Answer[]): number {
  const logged = messages.slice(from).filter((m) => CHECKED.has(m)).length;
  return logged + answers.filter((a) => a.signedIn).length;
}

function expectCleanAnswers(answers: Answer[]): void {
  const statuses = [...new Set(answers.map((a) => a.status))];
  expect(statuses, "every guess is answered with a redirect, never an error").toEqual([302]);
  const wrong = answers.filter((a) => a.location.includes("code=wrong_code")).length;
  expect(wrong, "at most 4 guesses are told the code is wrong").toBeLessThanOrEqual(MAX_TRIES - 1);
  expect(answers.filter((a) => a.signedIn).length, "at most one sign-in").toBeLessThanOrEqual(1);
}

for (const kind of [memory, memoryWithoutTryCount, postgres, redis]) {
  await storeBlock(FILE, kind, (store) => {
    test(`3 bursts of ${BURST} guesses with the right code planted: at most ${MAX_TRIES} are checked`, async () => {
      const app = await startApp(store().adapters);
      try {
        for (let round = 0; round < 3; round++) {
          const victim = `victim-${round}-${randomUUID()}@example.com`;
          const browser = await askForCode(app, victim);
          const guesses = wrongCodes(browser.code, BURST - 1);
          // Planted past the first few, as an attacker who knew it would not be.
          guesses.splice(BURST / 2, 0, browser.code);
          const before = app.messages.length;
          const answers = await burst(app, browser, guesses);
          expectCleanAnswers(answers);
          const checked = checkedSince(app.messages, before, answers);
          expect(
            checked,
            `guesses compared with the code in burst ${round + 1}`,
          ).toBeLessThanOrEqual(MAX_TRIES);
          // Whatever the burst did, the code is spent now: the right code alone fails.
          const [after] = await burst(app, browser, [browser.code]);
          expect(after?.signedIn, "the right code after the burst").toBe(false);
          expect(after?.location).toContain("code=code_unusable");
        }
      } finally {
        await app.close();
      }
    });

    test(`${BURST} wrong guesses at once use up the code: exactly ${MAX_TRIES} are checked, and the right code then fails`, async () => {
      const app = await startApp(store().adapters);
      try {
        const browser = await askForCode(app, `victim-${randomUUID()}@example.com`);
        const before = app.messages.length;
        const answers = await burst(app, browser, wrongCodes(browser.code, BURST));
        expectCleanAnswers(answers);
        expect(checkedSince(app.messages, before, answers), "guesses compared").toBe(MAX_TRIES);
        expect(answers.filter((a) => a.location.includes("code=wrong_code"))).toHaveLength(
          MAX_TRIES - 1,
        );
        const [right] = await burst(app, browser, [browser.code]);
        expect(right?.signedIn, "the right code after 200 wrong ones").toBe(false);
        expect(right?.location).toContain("code=code_unusable");
      } finally {
        await app.close();
      }
    });
  });
}
