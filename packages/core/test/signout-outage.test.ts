/**
 * Sign-out and session revocation while the session store fails, stalls or comes back: the answer
 * is honest. Either the session ended (after bounded retries: the cookie is cleared, `signOut`
 * fires, and a copy of the cookie no longer works), or the client is told it did not (a `503` with
 * `Retry-After`, or a page that offers to try again) and nothing pretends otherwise: the cookie
 * is kept and no `signOut` event fires.
 *
 * The stores here are the in-memory ones behind a switch; tests/integration/signout-outage.test.ts
 * does the same through a faulty TCP proxy in front of real PostgreSQL and Redis.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MissingAdapterMethods } from "@gatehousejs/core/errors";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, LoggerInstance } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { csrfToken, send } from "./helpers.js";
import { agents, Browser, COOKIE, sessionsConfig, users } from "./sessions-helpers.js";

type Mode = "up" | "down" | "hung";

/** A switch in front of some store methods: up, down (fails at once) or hung (never answers). */
class Outage {
  mode: Mode = "up";
  /** Methods that fail whatever the mode. */
  failing = new Set<string>();
  /** The next this-many calls fail, whatever the mode. */
  failNext = 0;
  calls: string[] = [];
  /** The rejections of hung calls, to fail them late. */
  held: Array<(error: Error) => void> = [];

  wrap<T extends object>(target: T, names: Array<keyof T & string>): T {
    const out = { ...target } as Record<string, unknown>;
    for (const name of names) {
      const method = target[name] as (...args: unknown[]) => unknown;
      out[name] = (...args: unknown[]) => {
        this.calls.push(name);
        if (this.failNext > 0) {
          this.failNext--;
          return Promise.reject(new Error("read ECONNRESET"));
        }
        if (this.mode === "down" || this.failing.has(name))
          return Promise.reject(new Error("connect ECONNREFUSED"));
        if (this.mode === "hung") {
          return new Promise((_, reject) => {
            this.held.push(reject);
          });
        }
        return Promise.resolve(method.apply(target, args));
      };
    }
    return out as T;
  }

  count(name: string): number {
    return this.calls.filter((c) => c === name).length;
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

type Logger = { [K in keyof LoggerInstance]: ReturnType<typeof vi.fn> };

function loggerOf(config: AuthConfig): Logger {
  return config.logger as unknown as Logger;
}

/** The types of the errors logged so far. */
function loggedTypes(config: AuthConfig): string[] {
  return loggerOf(config).error.mock.calls.map((c) => (c[0] as { type?: string }).type ?? "?");
}

async function databaseSetup(overrides: Partial<AuthConfig> = {}) {
  const memory = MemoryAdapter();
  for (const user of Object.values(users))
    await memory.createUser({ ...user, emailVerified: null });
  const outage = new Outage();
  const adapter = outage.wrap(memory, [
    "deleteSession",
    "deleteSessionsByUserId",
    "listSessionsByUserId",
  ]);
  const signOut = vi.fn();
  const config = sessionsConfig({
    adapter,
    session: { strategy: "database" },
    events: { signOut },
    ...overrides,
  });
  return { memory, outage, config, signOut };
}

async function jwtSetup() {
  const outage = new Outage();
  const order: string[] = [];
  const memory = MemoryRevocationStore();
  const store = outage.wrap(
    {
      ...memory,
      revokeSession: async (params: Parameters<typeof memory.revokeSession>[0]) => {
        order.push("revokeSession");
        await memory.revokeSession(params);
      },
    },
    ["revokeSession", "revokeUser", "listSessions"],
  );
  const signOut = vi.fn(() => {
    order.push("signOut event");
  });
  const config = sessionsConfig({
    session: { strategy: "jwt", revocation: { store } },
    events: { signOut },
  });
  return { outage, config, signOut, order };
}

/** A browser signed in as alice, and a second browser holding a copy of its cookie. */
async function signedIn(config: AuthConfig) {
  const browser = await new Browser(config, agents.chromeMac).signIn("alice");
  const copy = new Browser(config, agents.firefoxLinux);
  copy.cookies = new Map(browser.cookies);
  expect(await copy.session()).not.toBeNull();
  return { browser, copy };
}

/** POST /signout from `browser`, with extra request headers. */
async function signOutFrom(browser: Browser, headers: Record<string, string> = {}) {
  const token = await csrfToken(browser.config, browser);
  return send(browser.config, browser, "/auth/signout", {
    form: { csrfToken: token, callbackUrl: "/bye" },
    headers: { ...browser.headers, ...headers },
  });
}

/** The messages of an error's `cause` chain. */
function causes(error: unknown): string[] {
  const found: string[] = [];
  for (let e = (error as Error).cause; e instanceof Error; e = e.cause) found.push(e.message);
  return found;
}

const sessionCookieSet = (response: Response) =>
  response.headers.getSetCookie().filter((c) => c.startsWith(`${COOKIE}=`));

describe("POST /signout under the database strategy", () => {
  test("a store that fails twice and then answers: the session ends after the retries", async () => {
    const { outage, config, signOut, memory } = await databaseSetup();
    const { browser, copy } = await signedIn(config);
    outage.failNext = 2;
    const response = await signOutFrom(browser);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://localhost:3000/bye");
    expect(sessionCookieSet(response).join()).toMatch(/Max-Age=0/);
    expect(outage.count("deleteSession")).toBe(3);
    expect(signOut).toHaveBeenCalledOnce();
    expect(await copy.session()).toBeNull();
    expect(await memory.listSessionsByUserId(users.alice.id)).toEqual([]);
    expect(loggedTypes(config)).toEqual([]);
  });

  test("a store that stays down: a browser gets a 503 page with Retry-After, keeps its cookie, no signOut fires", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser, copy } = await signedIn(config);
    const token = browser.cookies.get(COOKIE) ?? "";
    outage.mode = "down";
    const response = await signOutFrom(browser, { accept: "text/html" });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toContain("still signed in");
    expect(html).toContain('name="csrfToken"');
    expect(html).not.toContain(token);
    expect(sessionCookieSet(response)).toEqual([]);
    expect(signOut).not.toHaveBeenCalled();
    // Retried within the deadline, not once and not forever.
    expect(outage.count("deleteSession")).toBeGreaterThan(1);
    expect(outage.count("deleteSession")).toBeLessThanOrEqual(4);
    expect(loggedTypes(config)).toEqual(["SessionStoreUnavailable"]);
    const logged = loggerOf(config).error.mock.calls[0]?.[0] as Error;
    expect(logged.message).not.toContain(token);
    expect(causes(logged)).toContain("connect ECONNREFUSED");

    // The page told the truth: the session is live, for this browser and for any copy.
    outage.mode = "up";
    expect(await browser.session()).not.toBeNull();
    expect(await copy.session()).not.toBeNull();
    // Trying again once the store is back ends it everywhere.
    const again = await signOutFrom(browser);
    expect(again.status).toBe(302);
    expect(signOut).toHaveBeenCalledOnce();
    expect(await copy.session()).toBeNull();
  });

  test("fetch and JSON clients get 503 JSON with Retry-After and a stable error value", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser } = await signedIn(config);
    outage.mode = "down";
    for (const headers of [
      { "x-auth-return-redirect": "1", accept: "application/json" } as Record<string, string>,
      { accept: "application/json" },
    ]) {
      const response = await signOutFrom(browser, headers);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ error: "SessionStoreUnavailable", retryAfter: 5 });
      expect(body).not.toHaveProperty("url");
      expect(sessionCookieSet(response)).toEqual([]);
    }
    expect(signOut).not.toHaveBeenCalled();
  });

  test("with a custom error page, the browser goes there with error=SessionStoreUnavailable", async () => {
    const { outage, config, signOut } = await databaseSetup({ pages: { error: "/oops" } });
    const { browser, copy } = await signedIn(config);
    outage.mode = "down";
    const response = await signOutFrom(browser, { accept: "text/html" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(
      "http://localhost:3000/oops?error=SessionStoreUnavailable",
    );
    expect(sessionCookieSet(response)).toEqual([]);
    expect(signOut).not.toHaveBeenCalled();
    outage.mode = "up";
    expect(await copy.session()).not.toBeNull();
  });

  test("a store that never answers: the sign-out gives up at its deadline; the late failure is no unhandled rejection", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser, copy } = await signedIn(config);
    outage.mode = "hung";
    const response = await signOutFrom(browser, { "x-auth-return-redirect": "1" });
    expect(response.status).toBe(503);
    expect(sessionCookieSet(response)).toEqual([]);
    expect(outage.held.length).toBeGreaterThan(0);
    // The connections finally break, long after the answer.
    for (const reject of outage.held) reject(new Error("Connection terminated unexpectedly"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signOut).not.toHaveBeenCalled();
    expect(loggedTypes(config)).toEqual(["SessionStoreUnavailable"]);
    outage.mode = "up";
    expect(await copy.session()).not.toBeNull();
  });

  test("an attempt that answers after the next one started still counts: the session ended", async () => {
    const { memory, config, signOut } = await databaseSetup();
    let calls = 0;
    const straggling = {
      ...(config.adapter as typeof memory),
      deleteSession(token: string) {
        calls++;
        // The first attempt answers late (past its own time), every later one never does.
        if (calls > 1) return new Promise<never>(() => {});
        return new Promise((resolve) => setTimeout(resolve, 1500)).then(() =>
          memory.deleteSession(token),
        );
      },
    };
    const { browser, copy } = await signedIn({ ...config, adapter: straggling });
    const response = await signOutFrom(browser);
    expect(response.status).toBe(302);
    expect(calls).toBeGreaterThan(1);
    expect(signOut).toHaveBeenCalledOnce();
    expect(await copy.session()).toBeNull();
  });

  test("an adapter that throws for a row that is already gone still signs out", async () => {
    const { memory, config, signOut } = await databaseSetup();
    const picky = {
      ...(config.adapter as typeof memory),
      async deleteSession(token: string) {
        const row = await memory.deleteSession(token);
        if (!row) throw new Error("Record to delete does not exist");
        return row;
      },
    };
    const strict = { ...config, adapter: picky };
    const { browser } = await signedIn(strict);
    // Another tab (or an admin) ended the session first.
    await memory.deleteSessionsByUserId(users.alice.id);
    const response = await signOutFrom(browser);
    expect(response.status).toBe(302);
    expect(sessionCookieSet(response).join()).toMatch(/Max-Age=0/);
    expect(signOut).toHaveBeenCalledOnce();
  });
});

describe("what the answer to a failed sign-out carries", () => {
  test("the page that offers to try again keeps the callbackUrl: trying again from it lands where the sign-out was going", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser, copy } = await signedIn(config);
    outage.mode = "down";
    const response = await signOutFrom(browser, { accept: "text/html" });
    expect(response.status).toBe(503);
    const html = await response.text();
    const field = (name: string) =>
      html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1]?.replace(/&amp;/g, "&");
    expect(field("callbackUrl")).toBe("http://localhost:3000/bye");
    outage.mode = "up";
    const again = await send(config, browser, "/auth/signout", {
      form: { csrfToken: field("csrfToken") ?? "", callbackUrl: field("callbackUrl") ?? "" },
      headers: browser.headers,
    });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("http://localhost:3000/bye");
    expect(signOut).toHaveBeenCalledOnce();
    expect(await copy.session()).toBeNull();
  });

  test("a configuration fault of the revocation store is an error at once, not a 503 that says to try again", async () => {
    const { config, signOut } = await jwtSetup();
    const faulty = MemoryRevocationStore();
    let calls = 0;
    const misconfigured: AuthConfig = {
      ...config,
      session: {
        strategy: "jwt",
        revocation: {
          store: {
            ...faulty,
            revokeSession: async () => {
              calls++;
              throw new MissingAdapterMethods("The revocation table does not exist");
            },
          },
        },
      },
    };
    const { browser } = await signedIn(misconfigured);
    const response = await signOutFrom(browser, { accept: "text/html" });
    expect(response.status).toBe(302);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "Configuration",
    );
    // Not retried: a configuration fault does not go away in a second.
    expect(calls).toBe(1);
    expect(signOut).not.toHaveBeenCalled();
    expect(loggedTypes(misconfigured)).toEqual(["MissingAdapterMethods"]);
  });
});

describe("POST /signout under the JWT strategy with a revocation store", () => {
  test("the signOut event fires after the revocation is written", async () => {
    const { config, order } = await jwtSetup();
    const { browser, copy } = await signedIn(config);
    const response = await signOutFrom(browser);
    expect(response.status).toBe(302);
    expect(order).toEqual(["revokeSession", "signOut event"]);
    expect(await copy.session()).toBeNull();
  });

  test("a revocation store that is down: 503, the cookie kept, no signOut; the copy works until a sign-out succeeds", async () => {
    const { outage, config, signOut } = await jwtSetup();
    const { browser, copy } = await signedIn(config);
    outage.mode = "down";
    const response = await signOutFrom(browser, { "x-auth-return-redirect": "1" });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ error: "SessionStoreUnavailable" });
    expect(sessionCookieSet(response)).toEqual([]);
    expect(signOut).not.toHaveBeenCalled();
    outage.mode = "up";
    expect(await copy.session()).not.toBeNull();
    expect((await signOutFrom(browser)).status).toBe(302);
    expect(signOut).toHaveBeenCalledOnce();
    expect(await copy.session()).toBeNull();
  });
});

describe("the session endpoints while their store is down", () => {
  test("database: listing and revoking answer 503 with Retry-After, not 500; nothing of this browser ends", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser } = await signedIn(config);
    const phone = await new Browser(config, agents.safariIphone).signIn("alice");
    outage.mode = "down";
    const listing = await browser.request("/auth/sessions");
    expect(listing.status).toBe(503);
    expect(listing.headers.get("retry-after")).toBe("5");
    for (const body of [{ others: true }, { all: true }]) {
      const { status, response, body: answer } = await browser.revoke(body);
      expect(status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(answer).toMatchObject({ error: "SessionStoreUnavailable" });
      expect(sessionCookieSet(response)).toEqual([]);
    }
    expect(signOut).not.toHaveBeenCalled();
    outage.mode = "up";
    expect(await browser.session()).not.toBeNull();
    expect(await phone.session()).not.toBeNull();
  });

  test("database: sign out everywhere with a store that fails after the other sessions ended keeps this browser signed in to ask again", async () => {
    const { outage, config, signOut } = await databaseSetup();
    const { browser } = await signedIn(config);
    const phone = await new Browser(config, agents.safariIphone).signIn("alice");
    // deleteSessionsByUserId (the others) works; the deletion of this browser's row does not.
    outage.failing.add("deleteSession");
    const first = await browser.revoke({ all: true });
    expect(first.status).toBe(503);
    expect(sessionCookieSet(first.response)).toEqual([]);
    expect(await phone.session()).toBeNull();
    expect(await browser.session()).not.toBeNull();
    expect(signOut).not.toHaveBeenCalled();
    outage.failing.clear();
    const second = await browser.revoke({ all: true });
    expect(second.body).toEqual({ revoked: 1 });
    expect(await browser.session()).toBeNull();
    expect(signOut).toHaveBeenCalledOnce();
  });

  test("JWT: revoking with the revocation store down answers 503 with Retry-After", async () => {
    const { outage, config, signOut } = await jwtSetup();
    const { browser, copy } = await signedIn(config);
    const mine = String((await browser.sessions()).body.sessions?.[0]?.id ?? "");
    expect(mine).not.toBe("");
    outage.mode = "down";
    for (const body of [{ others: true }, { all: true }, { id: mine }]) {
      const { status, response } = await browser.revoke(body);
      expect(status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(sessionCookieSet(response)).toEqual([]);
    }
    expect(signOut).not.toHaveBeenCalled();
    outage.mode = "up";
    expect(await copy.session()).not.toBeNull();
  });

  test("a configuration fault is still a 500 Configuration, not a 503", async () => {
    const memory = MemoryAdapter();
    await memory.createUser({ ...users.alice, emailVerified: null });
    const { listSessionsByUserId: _l, deleteSessionsByUserId: _d, ...adapter } = memory;
    const config = sessionsConfig({ adapter, session: { strategy: "database" } });
    const browser = await new Browser(config, agents.chromeMac).signIn("alice");
    const { status, response, body } = await browser.revoke({ others: true });
    expect(status).toBe(500);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(body).toMatchObject({ error: "Configuration" });
    expect(loggedTypes(config)).toEqual(["MissingAdapterMethods"]);
  });
});
