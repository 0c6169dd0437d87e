/**
 * Rate limits of sign-in, through `Auth()`: the credentials backoff per account and client
 * address, the per-client limits, how a limited request is answered, and what is logged.
 * Addresses reach Gatehouse through a trusted proxy's X-Forwarded-For (`trustedProxies: 1`).
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import Email from "@gatehousejs/core/providers/email";
import GitHub from "@gatehousejs/core/providers/github";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { MemoryRateLimitStore } from "../src/lib/features/rate-limit/memory.js";
import { alice, csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

/** A credentials config that accepts alice / wonderland and counts its `authorize` calls. */
function world(overrides: Partial<AuthConfig> = {}) {
  const authorize = vi.fn(({ username, password }: Partial<Record<string, unknown>>) =>
    username === "alice" && password === "wonderland" ? { ...alice } : null,
  );
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedProxies: 1,
    logger,
    providers: [
      Credentials({
        credentials: {
          username: { label: "Username" },
          password: { label: "Password", type: "password" },
        },
        authorize,
      }),
    ],
    ...overrides,
  };
  return { config, authorize, logger };
}

interface Attempt {
  username?: string;
  password?: string;
  /** The X-Forwarded-For header as it reaches the app. */
  forwardedFor?: string;
  /** Ask for JSON answers (`X-Auth-Return-Redirect: 1`), as the browser client does. */
  fetch?: boolean;
  accept?: string;
}

/** One credentials sign-in attempt from a fresh browser (its own CSRF cookie). */
async function attempt(config: AuthConfig, a: Attempt = {}) {
  const jar = new Jar();
  const csrf = await csrfToken(config, jar);
  const headers: Record<string, string> = {};
  if (a.forwardedFor) headers["x-forwarded-for"] = a.forwardedFor;
  if (a.fetch !== false) headers["x-auth-return-redirect"] = "1";
  if (a.accept) headers.accept = a.accept;
  const response = await send(config, jar, "/auth/callback/credentials", {
    form: {
      csrfToken: csrf,
      username: a.username ?? "alice",
      password: a.password ?? "wrong",
    },
    headers,
  });
  return { response, jar };
}

const ATTACKER = "198.51.100.7";
const HOME = "203.0.113.9";

afterEach(() => {
  vi.useRealTimers();
});

describe("credentials: failed passwords back off per account and client address", () => {
  test("50 simultaneous wrong passwords cannot all slip past the backoff, even without a per-client limit", async () => {
    const { config, authorize } = world({
      rateLimit: { credentials: { perClient: false } },
    });
    // An authorize that takes a while, as a password hash does: every attempt is in flight at once.
    const slow = async ({ username, password }: Partial<Record<string, unknown>>) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return username === "alice" && password === "wonderland" ? { ...alice } : null;
    };
    authorize.mockImplementation(slow as unknown as typeof authorize);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => attempt(config, { forwardedFor: ATTACKER })),
    );
    // Five free failures and one more at most, as when the attempts come one after another.
    expect(authorize.mock.calls.length).toBeLessThanOrEqual(6);
    expect(answers.filter((a) => a.response.status === 429).length).toBeGreaterThanOrEqual(44);
    // The real user, from home, is not slowed down by any of it.
    const home = await attempt(config, { password: "wonderland", forwardedFor: HOME });
    expect(home.response.status).toBe(200);
  });

  test("an authorize that throws counts as a failure: throwing is no free guess", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world({
      rateLimit: { store: MemoryRateLimitStore({ now: () => Date.now() }) },
    });
    authorize.mockImplementation(() => {
      throw new Error("no such user");
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await attempt(config, { forwardedFor: ATTACKER })).response.status);
    }
    expect(authorize.mock.calls.length).toBe(6);
    expect(statuses.slice(6)).toEqual([429, 429]);
    // Counted as failures, not left hanging as attempts in flight: once the wait is over, the
    // next attempt runs; the one after it waits again (two seconds now).
    vi.setSystemTime(Date.now() + 2_000);
    await attempt(config, { forwardedFor: ATTACKER });
    expect(authorize.mock.calls.length).toBe(7);
    expect((await attempt(config, { forwardedFor: ATTACKER })).response.status).toBe(429);
  });

  test("attempts whose authorize never answers hold the account back for five minutes, not for ever", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world({ rateLimit: { credentials: { perClient: false } } });
    authorize.mockImplementation((() => new Promise(() => {})) as unknown as typeof authorize);
    // Six sign-ins hang in authorize (never awaited here): the seventh waits as if they had failed.
    for (let i = 0; i < 6; i++) void attempt(config, { forwardedFor: ATTACKER });
    await vi.waitFor(() => expect(authorize.mock.calls.length).toBe(6));
    authorize.mockImplementation(() => null);
    expect((await attempt(config, { forwardedFor: ATTACKER })).response.status).toBe(429);
    vi.setSystemTime(Date.now() + 6 * 60 * 1000);
    const late = await attempt(config, { forwardedFor: ATTACKER });
    expect(late.response.status).not.toBe(429);
    expect(authorize.mock.calls.length).toBe(7);
  });

  test("a burst on a shared store is held back as on the memory store", async () => {
    // The memory store behind promises: the limiter takes its shared-store path.
    const inner = MemoryRateLimitStore();
    const shared = {
      hit: (key: string, ms: number, o?: { extend?: boolean }) => inner.hit(key, ms, o),
      peek: (key: string) => inner.peek(key),
      reset: (key: string) => inner.reset(key),
    };
    const { config, authorize } = world({
      rateLimit: { store: shared, credentials: { perClient: false } },
    });
    const slow = async ({ username, password }: Partial<Record<string, unknown>>) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return username === "alice" && password === "wonderland" ? { ...alice } : null;
    };
    authorize.mockImplementation(slow as unknown as typeof authorize);
    await Promise.all(
      Array.from({ length: 30 }, () => attempt(config, { forwardedFor: ATTACKER })),
    );
    expect(authorize.mock.calls.length).toBeLessThanOrEqual(6);
    const home = await attempt(config, { password: "wonderland", forwardedFor: HOME });
    expect(home.response.status).toBe(200);
  });

  test("a success beside failures in flight forgets the streak they leave", async () => {
    const { config, authorize } = world({ rateLimit: { credentials: { perClient: false } } });
    // The right password answers last, when the test says: the wrong ones land while it is in
    // flight. No timers, so a loaded machine cannot reorder them.
    let inFlight!: () => void;
    const started = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    let answer!: () => void;
    const gate = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const slow = async ({ username, password }: Partial<Record<string, unknown>>) => {
      if (password === "wonderland") {
        inFlight();
        await gate;
      }
      return username === "alice" && password === "wonderland" ? { ...alice } : null;
    };
    authorize.mockImplementation(slow as unknown as typeof authorize);
    const right = attempt(config, { password: "wonderland", forwardedFor: ATTACKER });
    await started;
    await Promise.all([1, 2, 3].map(() => attempt(config, { forwardedFor: ATTACKER })));
    answer();
    expect((await right).response.status).toBe(200);
    // Forgotten: five more failures are free again before the sixth waits.
    authorize.mockClear();
    for (let i = 0; i < 6; i++) await attempt(config, { forwardedFor: ATTACKER });
    expect(authorize.mock.calls.length).toBe(6);
  });

  test("1,000 wrong passwords from one address: authorize runs for the free failures and one more, then 429 with Retry-After", async () => {
    // The clock stands still: no wait runs out during the loop.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world({
      rateLimit: {
        store: MemoryRateLimitStore({ now: () => Date.now() }),
        // Raised so that only the failure backoff is at work here.
        credentials: { perClient: { max: 10_000, windowSeconds: 60 } },
      },
    });
    const statuses = new Map<number, number>();
    let firstLimited = -1;
    let retryAfter: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const { response } = await attempt(config, { forwardedFor: ATTACKER });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 429 && firstLimited < 0) {
        firstLimited = i;
        retryAfter = response.headers.get("retry-after");
        expect(await response.json()).toMatchObject({ error: "RateLimited" });
      }
    }
    // Five free failures, then the sixth starts the backoff: the seventh attempt waits.
    expect(authorize).toHaveBeenCalledTimes(6);
    expect(firstLimited).toBe(6);
    expect(statuses.get(429)).toBe(994);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(retryAfter))).toBe(true);

    // The real user, from their own address, signs in at once.
    const home = await attempt(config, { forwardedFor: HOME, password: "wonderland" });
    expect(home.response.status).toBe(200);
    expect(((await home.response.json()) as { url: string }).url).toBe(ORIGIN);
    expect(home.jar.cookies.has("authjs.session-token")).toBe(true);
    // From the attacker's address the account still waits, even with the right password.
    const there = await attempt(config, { forwardedFor: ATTACKER, password: "wonderland" });
    expect(there.response.status).toBe(429);
  });

  test("another account from the same address is not slowed down by the first one's failures", async () => {
    const { config, authorize } = world();
    for (let i = 0; i < 8; i++) await attempt(config, { forwardedFor: ATTACKER });
    authorize.mockClear();
    const other = await attempt(config, { forwardedFor: ATTACKER, username: "bob" });
    expect(other.response.status).toBe(200);
    expect(authorize).toHaveBeenCalledTimes(1);
  });

  test("the wait doubles with each failure past the free ones, and a success forgets the streak", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = MemoryRateLimitStore({ now: () => Date.now() });
    const { config, authorize } = world({ rateLimit: { store } });
    for (let i = 0; i < 6; i++) await attempt(config, { forwardedFor: ATTACKER });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const limited = await attempt(config, { forwardedFor: ATTACKER });
      expect(limited.response.status).toBe(429);
      waits.push(Number(limited.response.headers.get("retry-after")));
      vi.setSystemTime(Date.now() + waits[i]! * 1000);
      // The wait is over: this attempt reaches authorize, fails, and doubles the next wait.
      expect((await attempt(config, { forwardedFor: ATTACKER })).response.status).toBe(200);
    }
    expect(authorize).toHaveBeenCalledTimes(10);
    vi.setSystemTime(Date.now() + 16_000);
    expect(waits.slice(0, 4)).toEqual([1, 2, 4, 8]);
    const success = await attempt(config, { forwardedFor: ATTACKER, password: "wonderland" });
    expect(success.jar.cookies.has("authjs.session-token")).toBe(true);
    authorize.mockClear();
    // The streak is gone: five free failures again.
    for (let i = 0; i < 6; i++) await attempt(config, { forwardedFor: ATTACKER });
    expect(authorize).toHaveBeenCalledTimes(6);
    expect((await attempt(config, { forwardedFor: ATTACKER })).response.status).toBe(429);
  });

  test("the longest wait is maxSeconds", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = MemoryRateLimitStore({ now: () => Date.now() });
    const failures = { freeAttempts: 0, baseSeconds: 10, maxSeconds: 25 };
    const { config } = world({ rateLimit: { store, credentials: { failures } } });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      await attempt(config, { forwardedFor: ATTACKER });
      const limited = await attempt(config, { forwardedFor: ATTACKER });
      waits.push(Number(limited.response.headers.get("retry-after")));
      vi.setSystemTime(Date.now() + waits[i]! * 1000);
    }
    expect(waits).toEqual([10, 20, 25, 25]);
  });
});

describe("credentials: a flood of invented accounts", () => {
  test("failures on invented accounts, far past the store's bound, never reset the backoff on the target", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = MemoryRateLimitStore({ now: () => Date.now(), maxEntries: 300, maxStreaks: 300 });
    // The address unknown: no per-client limit stands in the way of the flood.
    const { config, authorize } = world({ trustedProxies: undefined, rateLimit: { store } });
    for (let i = 0; i < 52; i++) await attempt(config);
    expect(authorize).toHaveBeenCalledTimes(51);
    for (let i = 0; i < 600; i++) await attempt(config, { username: `invented-${i}` });
    authorize.mockClear();
    for (let i = 0; i < 20; i++) {
      expect((await attempt(config)).response.status).toBe(429);
    }
    expect(authorize).not.toHaveBeenCalled();
  });

  test("with the streaks full, a new account's failures are still counted: no free guessing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = MemoryRateLimitStore({ now: () => Date.now(), maxStreaks: 100 });
    const { config, authorize } = world({ trustedProxies: undefined, rateLimit: { store } });
    for (let i = 0; i < 200; i++) await attempt(config, { username: `invented-${i}` });
    authorize.mockClear();
    for (let i = 0; i < 80; i++) await attempt(config, { username: "bob" });
    // At most the 50 free failures of unknown clients and one more, on bob's spill counter.
    expect(authorize.mock.calls.length).toBeLessThanOrEqual(51);
    expect(authorize.mock.calls.length).toBeGreaterThan(0);
  });
});

describe("credentials: attempts per client address", () => {
  test("the 31st attempt in a minute from one address is refused, whatever the account", async () => {
    const { config, authorize } = world();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const { response } = await attempt(config, { forwardedFor: ATTACKER, username: `user${i}` });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect(authorize).toHaveBeenCalledTimes(30);
    const elsewhere = await attempt(config, { forwardedFor: HOME, password: "wonderland" });
    expect(elsewhere.jar.cookies.has("authjs.session-token")).toBe(true);
  });

  test("200 addresses of one IPv6 /64 share one bucket; the next /64 has its own", async () => {
    const { config } = world();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const address = `2001:db8:1:2:${(i + 1).toString(16)}::${(i * 7 + 1).toString(16)}`;
      const { response } = await attempt(config, { forwardedFor: address, username: `u${i}` });
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    const neighbour = await attempt(config, {
      forwardedFor: "2001:db8:1:3::1",
      password: "wonderland",
    });
    expect(neighbour.jar.cookies.has("authjs.session-token")).toBe(true);
  });
});

describe("the client address: X-Forwarded-For only through trusted proxies", () => {
  test("without trustedProxies a spoofed X-Forwarded-For changes nothing: the account backoff still holds", async () => {
    const { config, authorize } = world({ trustedProxies: undefined });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const spoofed = `192.0.2.${i + 1}`;
      statuses.push((await attempt(config, { forwardedFor: spoofed })).response.status);
    }
    // Unknown addresses count per account alone, under the generous rule (50 free failures).
    expect(authorize).toHaveBeenCalledTimes(51);
    expect(statuses.slice(51).every((s) => s === 429)).toBe(true);
  });

  test("without trustedProxies no per-client limit applies: unknown clients are not one bucket", async () => {
    const { config, authorize } = world({ trustedProxies: undefined });
    for (let i = 0; i < 40; i++) await attempt(config, { username: `user${i}` });
    expect(authorize).toHaveBeenCalledTimes(40);
  });

  test("without an address or an account field, failures are not counted in one global bucket", async () => {
    const authorize = vi.fn(() => null);
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      providers: [Credentials({ credentials: { code: { type: "password" } }, authorize })],
    };
    for (let i = 0; i < 60; i++) {
      const jar = new Jar();
      const csrf = await csrfToken(config, jar);
      await send(config, jar, "/auth/callback/credentials", {
        form: { csrfToken: csrf, code: `guess-${i}` },
      });
    }
    expect(authorize).toHaveBeenCalledTimes(60);
  });

  test("with one trusted proxy, entries the client wrote to the left are ignored", async () => {
    const { config, authorize } = world({ trustedProxies: 1 });
    for (let i = 0; i < 10; i++) {
      await attempt(config, { forwardedFor: `192.0.2.${i + 1}, ${ATTACKER}` });
    }
    expect(authorize).toHaveBeenCalledTimes(6);
    const home = await attempt(config, {
      forwardedFor: `${ATTACKER}, ${HOME}`,
      password: "wonderland",
    });
    expect(home.jar.cookies.has("authjs.session-token")).toBe(true);
  });

  test("with trusted CIDR ranges, the rightmost address outside them is the client", async () => {
    const { config, authorize } = world({ trustedProxies: ["10.0.0.0/8", "2001:db8:ffff::/48"] });
    for (let i = 0; i < 10; i++) {
      const chain = `192.0.2.${i + 1}, ${ATTACKER}, 10.1.2.3, 2001:db8:ffff::2`;
      await attempt(config, { forwardedFor: chain });
    }
    expect(authorize).toHaveBeenCalledTimes(6);
    const home = await attempt(config, {
      forwardedFor: `${ATTACKER}, ${HOME}, 10.9.9.9`,
      password: "wonderland",
    });
    expect(home.jar.cookies.has("authjs.session-token")).toBe(true);
  });

  test("the clientAddress hook wins over X-Forwarded-For, and sees the request given to Auth()", async () => {
    const seen: Request[] = [];
    const { config, authorize } = world({
      trustedProxies: 1,
      clientAddress: (request) => {
        seen.push(request);
        return request.headers.get("x-platform-ip");
      },
    });
    for (let i = 0; i < 10; i++) {
      const jar = new Jar();
      const csrf = await csrfToken(config, jar);
      await send(config, jar, "/auth/callback/credentials", {
        form: { csrfToken: csrf, username: "alice", password: "wrong" },
        headers: { "x-platform-ip": ATTACKER, "x-forwarded-for": `192.0.2.${i + 1}` },
      });
    }
    expect(authorize).toHaveBeenCalledTimes(6);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.headers.get("x-platform-ip") === ATTACKER)).toBe(true);
  });
});

describe("configuration", () => {
  test("failures: false turns the backoff off, and the per-client limit stays", async () => {
    const { config, authorize } = world({ rateLimit: { credentials: { failures: false } } });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await attempt(config, { forwardedFor: ATTACKER })).response.status);
    }
    expect(authorize).toHaveBeenCalledTimes(30);
    expect(statuses[30]).toBe(429);
  });

  test("rateLimit: false turns every limit off", async () => {
    const { config, authorize } = world({ rateLimit: false });
    for (let i = 0; i < 40; i++) await attempt(config, { forwardedFor: ATTACKER });
    expect(authorize).toHaveBeenCalledTimes(40);
  });

  test("a configured rule replaces the default", async () => {
    const { config, authorize } = world({
      rateLimit: {
        credentials: {
          perClient: { max: 3, windowSeconds: 60 },
          failures: { freeAttempts: 1, baseSeconds: 30, maxSeconds: 60 },
        },
      },
    });
    const first = await attempt(config, { forwardedFor: ATTACKER });
    const second = await attempt(config, { forwardedFor: ATTACKER });
    const third = await attempt(config, { forwardedFor: ATTACKER });
    expect([first, second, third].map((a) => a.response.status)).toEqual([200, 200, 429]);
    expect(third.response.headers.get("retry-after")).toBe("30");
    expect(authorize).toHaveBeenCalledTimes(2);
    // Other accounts: three attempts a minute from this address, then 429.
    const a = await attempt(config, { forwardedFor: ATTACKER, username: "x" });
    const b = await attempt(config, { forwardedFor: ATTACKER, username: "y" });
    expect([a.response.status, b.response.status]).toEqual([429, 429]);
  });

  test.each([
    [{ credentials: { perClient: { max: 0, windowSeconds: 60 } } }],
    [{ email: { perAddress: { max: 3 } } }],
    [{ credentials: { failures: { freeAttempts: 5, baseSeconds: 10, maxSeconds: 5 } } }],
    [{ oauth: "off" }],
  ])("a malformed limit is a configuration error: %j", async (rateLimit) => {
    const { config, logger } = world({ rateLimit: rateLimit as AuthConfig["rateLimit"] });
    const { response } = await attempt(config, { forwardedFor: ATTACKER });
    expect(response.status).toBe(500);
    // Each request (the CSRF token, then the sign-in) logs the broken configuration once.
    expect(logger.error).toHaveBeenCalledTimes(2);
    for (const [error] of logger.error.mock.calls) expect(error.message).toContain("rateLimit.");
  });

  test.each([["ten"], [-1], [["10.0.0.0/33"]], [["not an address"]]])(
    "a malformed trustedProxies is a configuration error: %j",
    async (trustedProxies) => {
      const { config } = world({ trustedProxies: trustedProxies as AuthConfig["trustedProxies"] });
      const { response } = await attempt(config, { forwardedFor: ATTACKER });
      expect(response.status).toBe(500);
    },
  );
});

describe("a store that fails", () => {
  test("lets the sign-in through, with one error line and no secret in it", async () => {
    const broken = {
      hit: async () => {
        throw new Error("connection refused");
      },
      peek: async () => {
        throw new Error("connection refused");
      },
      reset: async () => {},
    };
    const { config, logger } = world({ rateLimit: { store: broken } });
    const { response, jar } = await attempt(config, {
      forwardedFor: ATTACKER,
      password: "wonderland",
    });
    expect(response.status).toBe(200);
    expect(jar.cookies.has("authjs.session-token")).toBe(true);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const line = String(logger.error.mock.calls[0]![0].message);
    expect(line).toContain("rate-limit store");
    expect(line).not.toContain(ATTACKER);
  });
});

describe("what a store is given as keys", () => {
  /** A shared store (no synchronous face): a memory store behind promises that records its keys. */
  function recordingStore() {
    const inner = MemoryRateLimitStore();
    const keys: string[] = [];
    const store = {
      hit: (key: string, windowMs: number, options?: { extend?: boolean }) => {
        keys.push(key);
        return inner.hit(key, windowMs, options);
      },
      peek: (key: string) => {
        keys.push(key);
        return inner.peek(key);
      },
      reset: (key: string) => {
        keys.push(key);
        return inner.reset(key);
      },
    };
    return { store, keys };
  }

  test("a shared store sees hashed keys only: no address, no account", async () => {
    const { store, keys } = recordingStore();
    const { config } = world({ rateLimit: { store } });
    await attempt(config, { forwardedFor: ATTACKER });
    await attempt(config, { forwardedFor: HOME, password: "wonderland" });
    expect(keys.length).toBeGreaterThanOrEqual(6);
    for (const key of keys) {
      expect(key).toMatch(/^credentials\.(perClient|failures):[\w-]{22}$/);
      for (const secret of [ATTACKER, HOME, "alice"]) expect(key).not.toContain(secret);
    }
  });

  test("on the memory store, an account too long for a plain key still backs off", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const long = `${"a".repeat(200)}@example.com`;
    const { config, authorize } = world({
      rateLimit: { store: MemoryRateLimitStore({ now: () => Date.now() }) },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(
        (await attempt(config, { username: long, forwardedFor: ATTACKER })).response.status,
      );
    }
    // Five free failures, one more after the first wait would have passed, then refused.
    expect(authorize.mock.calls.length).toBe(6);
    expect(statuses.slice(6)).toEqual([429, 429]);
    // The same long account from another client is not slowed down.
    await attempt(config, { username: long, forwardedFor: HOME });
    expect(authorize.mock.calls.length).toBe(7);
  });
});

describe("how a limited request is answered", () => {
  async function exhaust(config: AuthConfig) {
    for (let i = 0; i < 6; i++) await attempt(config, { forwardedFor: ATTACKER });
  }

  test("a browser form goes back to the sign-in page, which says when to try again", async () => {
    const { config } = world();
    await exhaust(config);
    const { response } = await attempt(config, { forwardedFor: ATTACKER, fetch: false });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.pathname).toBe("/auth/signin");
    expect(location.searchParams.get("error")).toBe("RateLimited");
    const wait = location.searchParams.get("code");
    expect(response.headers.get("retry-after")).toBe(wait);
    const page = await send(config, new Jar(), `/auth/signin${location.search}`);
    const html = await page.text();
    expect(html).toContain(`Too many attempts. Please try again in ${wait} second`);
  });

  test("Accept: application/json gets the 429", async () => {
    const { config } = world();
    await exhaust(config);
    const { response } = await attempt(config, {
      forwardedFor: ATTACKER,
      fetch: false,
      accept: "application/json",
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const body = (await response.json()) as { retryAfter: number };
    expect(String(body.retryAfter)).toBe(response.headers.get("retry-after"));
  });

  test("a custom sign-in page gets error=RateLimited and the wait", async () => {
    const { config } = world({ pages: { signIn: "/login" } });
    await exhaust(config);
    const { response } = await attempt(config, { forwardedFor: ATTACKER, fetch: false });
    const location = new URL(response.headers.get("location")!);
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("error")).toBe("RateLimited");
    expect(Number(location.searchParams.get("code"))).toBeGreaterThanOrEqual(1);
  });

  test("one warn line per refusal, naming the limit and a hashed key: no address, account or password", async () => {
    const { config, logger } = world();
    await exhaust(config);
    logger.warn.mockClear();
    logger.error.mockClear();
    await attempt(config, { forwardedFor: ATTACKER, password: "hunter2-secret" });
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [code, detail] = logger.warn.mock.calls[0]!;
    expect(code).toBe("client-error");
    const line = `${detail?.name} ${detail?.message}`;
    expect(line).toContain("credentials.failures");
    for (const secret of [ATTACKER, "198.51.100", "alice", "hunter2", SECRET]) {
      expect(line).not.toContain(secret);
    }
  });
});

describe("the other sign-in actions", () => {
  function emailWorld(overrides: Partial<AuthConfig> = {}) {
    const sent: string[] = [];
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedProxies: 1,
      logger: recordingLogger(),
      adapter: MemoryAdapter(),
      providers: [
        Email({
          sendVerificationRequest: async ({ identifier }) => {
            sent.push(identifier);
          },
        }),
      ],
      ...overrides,
    };
    return { config, sent };
  }

  async function requestEmail(config: AuthConfig, email: string, forwardedFor: string) {
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    return send(config, jar, "/auth/signin/email", {
      form: { csrfToken: csrf, email },
      headers: { "x-forwarded-for": forwardedFor, "x-auth-return-redirect": "1" },
    });
  }

  test("a fourth sign-in email to one address within 10 minutes is refused, from any client", async () => {
    const { config, sent } = emailWorld();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await requestEmail(config, "Victim@Example.com", `192.0.2.${i + 1}`);
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(sent).toHaveLength(3);
    expect((await requestEmail(config, "other@example.com", "192.0.2.1")).status).toBe(200);
  });

  test("an eleventh sign-in email asked for by one client within 10 minutes is refused", async () => {
    const { config, sent } = emailWorld();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await requestEmail(config, `user${i}@example.com`, ATTACKER)).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(sent).toHaveLength(10);
  });

  test("email: false lifts both email limits", async () => {
    const { config, sent } = emailWorld({ rateLimit: { email: false } });
    for (let i = 0; i < 12; i++) await requestEmail(config, "victim@example.com", ATTACKER);
    expect(sent).toHaveLength(12);
  });

  test("OAuth sign-in starts: 60 a minute per client", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedProxies: 1,
      logger: recordingLogger(),
      providers: [GitHub({ clientId: "id", clientSecret: "secret" })],
    };
    const statuses: string[] = [];
    for (let i = 0; i < 61; i++) {
      const jar = new Jar();
      const csrf = await csrfToken(config, jar);
      const response = await send(config, jar, "/auth/signin/github", {
        form: { csrfToken: csrf },
        headers: { "x-forwarded-for": ATTACKER },
      });
      statuses.push(response.headers.get("location") ?? "");
    }
    expect(statuses.slice(0, 60).every((s) => s.startsWith("https://github.com/"))).toBe(true);
    expect(new URL(statuses[60]!).searchParams.get("error")).toBe("RateLimited");
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const limited = await send(config, jar, "/auth/signin/github", {
      form: { csrfToken: csrf },
      headers: { "x-forwarded-for": ATTACKER, "x-auth-return-redirect": "1" },
    });
    expect(limited.status).toBe(429);
  });

  test("WebAuthn options: 60 a minute per client, answered 429", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedProxies: 1,
      logger: recordingLogger(),
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
    };
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const response = await send(config, new Jar(), "/auth/webauthn-options/passkey", {
        headers: { "x-forwarded-for": ATTACKER },
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    const other = await send(config, new Jar(), "/auth/webauthn-options/passkey", {
      headers: { "x-forwarded-for": HOME },
    });
    expect(other.status).toBe(200);
  });
});
