/**
 * The credentials limits on a store that several app instances share (Redis, PostgreSQL): any
 * store without the memory store's synchronous face. Here it is the memory store behind promises
 * that settle on a later turn of the event loop, as a network round trip does, and that can be
 * held to put the calls of simultaneous attempts in a chosen order. The per-client limit, the
 * backoff and its waits, bursts, streaks that last from their last failure, the account-wide
 * streak of unknown clients, device streaks, a store that fails, and a store whose clock runs
 * ahead. tests/integration runs the same paths on real Redis and PostgreSQL.
 */
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig, RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { MemoryRateLimitStore } from "../src/lib/features/rate-limit/memory.js";
import { alice, csrfToken, Jar, recordingLogger, SECRET, send } from "./helpers.js";

type Method = "hit" | "peek" | "reset";

/** A shared store: the memory store behind promises that settle on a later turn. */
class SharedStore implements RateLimitStore {
  readonly inner: RateLimitStore;
  readonly calls: { method: Method; key: string }[] = [];
  /** Methods that fail, as a store that is down does. */
  readonly failing = new Set<Method>();
  /** While holding, calls wait in this queue until released, in the order they were made. */
  #queue: (() => void)[] | null = null;

  constructor(now: () => number = () => Date.now()) {
    this.inner = MemoryRateLimitStore({ now });
  }

  hit(key: string, windowMs: number, options?: { extend?: boolean }): Promise<RateLimitCount> {
    return this.#call("hit", key, () => this.inner.hit(key, windowMs, options));
  }

  peek(key: string): Promise<RateLimitCount | null> {
    return this.#call("peek", key, () => this.inner.peek(key));
  }

  reset(key: string): Promise<void> {
    return this.#call("reset", key, () => this.inner.reset(key));
  }

  hold(): void {
    this.#queue = [];
  }

  /** Settles the calls held so far, in order; later calls are held again while holding. */
  release(): void {
    const queue = this.#queue ?? [];
    this.#queue = this.#queue && [];
    for (const go of queue) go();
  }

  stopHolding(): void {
    this.release();
    this.#queue = null;
  }

  /** Waits until `count` calls of `method` are held. */
  async held(method: Method, count: number): Promise<void> {
    await vi.waitFor(() => {
      const waiting = this.#waiting.filter((m) => m === method).length;
      if (waiting < count) throw new Error(`${waiting} of ${count} ${method} calls held`);
    });
  }

  #waiting: Method[] = [];

  #call<T>(method: Method, key: string, work: () => Promise<T>): Promise<T> {
    this.calls.push({ method, key });
    const run = (): Promise<T> =>
      new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
        this.failing.has(method) ? Promise.reject(new Error(`${method}: ECONNREFUSED`)) : work(),
      );
    const queue = this.#queue;
    if (!queue) return run();
    this.#waiting.push(method);
    return new Promise<void>((resolve) => {
      queue.push(() => {
        this.#waiting.splice(this.#waiting.indexOf(method), 1);
        resolve();
      });
    }).then(run);
  }

  count(method: Method): number {
    return this.calls.filter((call) => call.method === method).length;
  }
}

/** Alice (wonderland), with `authorize` counted; the shared store unless another is given. */
function world(overrides: Partial<AuthConfig> = {}) {
  const authorize = vi.fn(({ username, password }: Partial<Record<string, unknown>>) =>
    username === "alice" && password === "wonderland" ? { ...alice } : null,
  );
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
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

const SESSION = "authjs.session-token";
const ATTACKER = "198.51.100.7";
const HOME = "203.0.113.9";

/** One sign-in attempt from `jar` (a fresh browser by default). */
async function attempt(
  config: AuthConfig,
  {
    password = "wrong",
    from = "",
    jar = new Jar(),
  }: { password?: string; from?: string; jar?: Jar } = {},
) {
  const csrf = await csrfToken(config, jar);
  const headers: Record<string, string> = { "x-auth-return-redirect": "1" };
  if (from) headers["x-forwarded-for"] = from;
  const response = await send(config, jar, "/auth/callback/credentials", {
    form: { csrfToken: csrf, username: "alice", password },
    headers,
  });
  return {
    status: response.status,
    retryAfter: Number(response.headers.get("retry-after") ?? 0),
    signedIn: jar.cookies.has(SESSION),
    jar,
  };
}

/** Wrong passwords one after another until one is refused; how many reached `authorize`. */
async function freeGuesses(
  config: AuthConfig,
  authorize: { mock: { calls: unknown[] } },
  from = "",
) {
  const before = authorize.mock.calls.length;
  for (let i = 0; i < 100; i++) {
    if ((await attempt(config, { from })).status === 429) break;
  }
  return authorize.mock.calls.length - before;
}

/** The warn lines of refusals (a failed password has a warn line of its own). */
function refusals(config: AuthConfig): string[] {
  return (config.logger as ReturnType<typeof recordingLogger>).warn.mock.calls
    .map(([kind, error]) => `${kind}: ${(error as Error).message}`)
    .filter((line) => line.includes("(limit "));
}

function errors(config: AuthConfig): Error[] {
  return (config.logger as ReturnType<typeof recordingLogger>).error.mock.calls.map(
    ([error]) => error as Error,
  );
}

afterEach(() => {
  vi.useRealTimers();
});

const stores: [string, () => RateLimitStore][] = [
  ["the memory store", () => MemoryRateLimitStore({ now: () => Date.now() })],
  ["a shared store", () => new SharedStore()],
];

for (const [name, makeStore] of stores) {
  describe(`attempts per client, with ${name}`, () => {
    test("a client over the limit waits the rest of the window, named in one warn line; another client is counted apart", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const { config, authorize } = world({
        trustedProxies: 1,
        rateLimit: {
          store: makeStore(),
          credentials: { failures: false, perClient: { max: 2, windowSeconds: 60 } },
        },
      });
      expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
      expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
      const refused = await attempt(config, { from: ATTACKER });
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe(60);
      vi.setSystemTime(Date.now() + 20_000);
      expect((await attempt(config, { from: ATTACKER })).retryAfter).toBe(40);
      // Another client has its own count, even with the right password turned away by nothing.
      expect((await attempt(config, { from: HOME })).status).toBe(200);
      expect((await attempt(config, { from: HOME, password: "wonderland" })).signedIn).toBe(true);
      expect((await attempt(config, { from: HOME })).status).toBe(429);
      expect(authorize).toHaveBeenCalledTimes(4);
      const lines = refusals(config);
      expect(lines).toHaveLength(3);
      for (const line of lines) {
        expect(line).toMatch(
          /^client-error: Too many credentials attempts from one client \(limit credentials\.perClient \S{8}\); retry in \d+ s$/,
        );
      }
      // Each client's counter has a name of its own, and neither is its address.
      const named = lines.map((line) => /\(limit ([^)]+)\)/.exec(line)?.[1]);
      expect(named[0]).toBe(named[1]);
      expect(named[2]).not.toBe(named[0]);
      expect(lines.join("\n")).not.toContain(ATTACKER);
    });
  });

  describe(`unknown clients, with ${name}`, () => {
    test("the account's streak of unknown clients is everyone's: the user's success does not end it for the strangers", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const failures = { freeAttempts: 1, baseSeconds: 60, maxSeconds: 60 };
      const { config, authorize } = world({
        rateLimit: { store: makeStore(), credentials: { failures } },
      });
      // Unknown clients get ten times the free failures: ten, then a minute's wait.
      expect(await freeGuesses(config, authorize)).toBe(11);
      vi.setSystemTime(Date.now() + 61_000);
      expect((await attempt(config, { password: "wonderland" })).signedIn).toBe(true);
      // The user's success forgot nothing of the strangers': their wait was over, so one more
      // guess at most (a shared store counted the user's own attempt, and refuses at once), but
      // not their ten free ones again.
      expect(await freeGuesses(config, authorize)).toBeLessThanOrEqual(1);
      const stranger = await attempt(config);
      expect(stranger.status).toBe(429);
      expect(stranger.retryAfter).toBe(60);
    });
  });
}

describe("the backoff on a shared store", () => {
  test("five free failures, then waits that double; a wait waited out lets one attempt through; a success forgets the streak", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world({
      trustedProxies: 1,
      rateLimit: { store: new SharedStore() },
    });
    for (let i = 0; i < 6; i++) {
      expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    }
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const limited = await attempt(config, { from: ATTACKER });
      expect(limited.status).toBe(429);
      waits.push(limited.retryAfter);
      vi.setSystemTime(Date.now() + limited.retryAfter * 1000);
      expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    }
    expect(waits).toEqual([1, 2, 4]);
    expect(authorize).toHaveBeenCalledTimes(9);
    const lines = refusals(config);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^client-error: Too many failed sign-ins for one account from one client \(limit credentials\.failures \S{8}\); retry in 1 s$/,
    );
    vi.setSystemTime(Date.now() + 8_000);
    expect((await attempt(config, { from: ATTACKER, password: "wonderland" })).signedIn).toBe(true);
    // Forgotten: five free failures again, then the first wait.
    expect(await freeGuesses(config, authorize, ATTACKER)).toBe(6);
  });

  test("a streak lasts an hour from its last failure, not from its first", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    // One free failure, then a minute's wait; a streak is remembered for an hour after it.
    const failures = { freeAttempts: 1, baseSeconds: 60, maxSeconds: 60 };
    const { config } = world({
      trustedProxies: 1,
      rateLimit: { store: new SharedStore(), credentials: { failures, perClient: false } },
    });
    const minutes = (n: number) => vi.setSystemTime(Date.now() + n * 60_000);
    expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    minutes(50);
    expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    minutes(50);
    // A hundred minutes after the first failure, fifty after the last: the streak runs on.
    expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    expect((await attempt(config, { from: ATTACKER })).status).toBe(429);
  });

  test("a burst of simultaneous attempts is counted before any is checked: within the free failures all go through, past them each waits", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new SharedStore();
    const failures = { freeAttempts: 2, baseSeconds: 10, maxSeconds: 1000 };
    const { config, authorize } = world({
      trustedProxies: 1,
      rateLimit: { store, credentials: { failures, perClient: false } },
    });
    // Every attempt reads the streak (empty) before any of them is counted.
    store.hold();
    const burst = Promise.all([1, 2, 3, 4].map(() => attempt(config, { from: ATTACKER })));
    await store.held("peek", 4);
    store.release();
    await store.held("hit", 4);
    store.stopHolding();
    const answers = await burst;
    // Counted 1 to 4: the second and the third are still within the two free failures (the
    // third is the second failure); the fourth waits as if the others had failed just now.
    expect(authorize).toHaveBeenCalledTimes(3);
    expect(answers.filter((a) => a.status === 429).map((a) => a.retryAfter)).toEqual([10]);
  });

  test("an unknown client's success takes its own count back when it was the only one, and only then", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new SharedStore();
    const failures = { freeAttempts: 1, baseSeconds: 60, maxSeconds: 60 };
    const { config, authorize } = world({ rateLimit: { store, credentials: { failures } } });
    // Three sign-ins of the user, each counted before authorize and taken back after: none left.
    for (let i = 0; i < 3; i++) {
      expect((await attempt(config, { password: "wonderland" })).signedIn).toBe(true);
    }
    expect(await freeGuesses(config, authorize)).toBe(11);

    // A fresh account streak: a stranger's attempt and the user's read it empty together, and
    // the stranger's is counted first. The user's success then takes nothing back.
    const shared = new SharedStore();
    const { config: other, authorize: counted } = world({
      rateLimit: { store: shared, credentials: { failures } },
    });
    shared.hold();
    const stranger = attempt(other);
    await shared.held("peek", 1);
    const user = attempt(other, { password: "wonderland" });
    await shared.held("peek", 2);
    shared.release();
    await shared.held("hit", 2);
    shared.stopHolding();
    expect((await stranger).status).toBe(200);
    expect((await user).signedIn).toBe(true);
    // Two counted (the stranger's failure, and the user's own attempt): nine more free guesses.
    expect(await freeGuesses(other, counted)).toBe(9);
  });
});

describe("a streak that ends while an attempt is in flight", () => {
  test("a success whose count started a new streak (the one it read ended in between) takes that count back", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new SharedStore();
    const failures = { freeAttempts: 1, baseSeconds: 60, maxSeconds: 60 };
    const { config, authorize } = world({ rateLimit: { store, credentials: { failures } } });
    // One failure: the account's streak, as the user's attempt will read it.
    expect((await attempt(config)).status).toBe(200);
    store.hold();
    const user = attempt(config, { password: "wonderland" });
    await store.held("peek", 1);
    const read = store.calls.filter((c) => c.method === "peek").at(-1)!;
    // The attempt reads the streak (one failure), then waits to be counted.
    store.release();
    await store.held("hit", 1);
    expect(await store.inner.peek(read.key)).toMatchObject({ count: 1 });
    // The streak ends (an hour of quiet, or another success taking it back) before the user's
    // attempt is counted: its count is then the only one of a new streak.
    await store.inner.reset(read.key);
    store.stopHolding();
    expect((await user).signedIn).toBe(true);
    // Nothing of the user's is left on the account's streak.
    expect(await store.inner.peek(read.key)).toBeNull();
    expect(authorize).toHaveBeenCalledTimes(2);
  });
});

describe("device streaks on a shared store", () => {
  test("a browser that signed in counts its failures on its own device streak, named as such; its success forgets it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new SharedStore();
    const { config, authorize } = world({ rateLimit: { store } });
    const browser = new Jar();
    expect((await attempt(config, { jar: browser, password: "wonderland" })).signedIn).toBe(true);
    authorize.mockClear();
    // Strangers spend the account's free failures of unknown clients (fifty, and one more).
    expect(await freeGuesses(config, authorize)).toBe(51);
    store.calls.splice(0);
    const own = async () => {
      for (let i = 0; i < 20; i++) {
        if ((await attempt(config, { jar: browser })).status === 429) return i;
      }
      return -1;
    };
    // The strangers' streak does not hold the browser back; its own five free failures do.
    browser.cookies.delete(SESSION);
    expect(await own()).toBe(6);
    const keys = new Set(store.calls.map((call) => call.key.split(":")[0]));
    expect([...keys]).toEqual(["credentials.device"]);
    expect(refusals(config).at(-1)).toMatch(
      /^client-error: Too many failed sign-ins for one account from one device \(limit credentials\.device \S{8}\); retry in 1 s$/,
    );
    vi.setSystemTime(Date.now() + 1000);
    expect((await attempt(config, { jar: browser, password: "wonderland" })).signedIn).toBe(true);
    browser.cookies.delete(SESSION);
    expect(await own()).toBe(6);
  });
});

describe("a shared store that fails", () => {
  test("reads failing: the attempt goes on uncounted (nothing written), with one error line", async () => {
    const store = new SharedStore();
    store.failing.add("peek");
    const { config, authorize } = world({ trustedProxies: 1, rateLimit: { store } });
    for (let i = 0; i < 8; i++)
      expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
    expect(authorize).toHaveBeenCalledTimes(8);
    expect(errors(config)).toHaveLength(8);
    expect(errors(config)[0]?.message).toMatch(/rate-limit store/);
    // The per-client count goes out with the read; the failure streak is never written.
    expect(store.calls.filter((c) => c.method === "hit").map((c) => c.key.split(":")[0])).toEqual(
      Array(8).fill("credentials.perClient"),
    );
  });

  test("writes failing: an unknown client and a known one still sign in, with one error line each", async () => {
    const store = new SharedStore();
    store.failing.add("hit");
    const { config } = world({ rateLimit: { store, credentials: { perClient: false } } });
    expect((await attempt(config, { password: "wonderland" })).signedIn).toBe(true);
    const known = { ...config, trustedProxies: 1 };
    expect((await attempt(known, { from: HOME, password: "wonderland" })).signedIn).toBe(true);
    expect(errors(config).map((e) => e.message)).toEqual([
      "The rate-limit store failed",
      "The rate-limit store failed",
    ]);
  });

  test("forgetting failing: the sign-in still succeeds, with one error line", async () => {
    const store = new SharedStore();
    store.failing.add("reset");
    const { config } = world({ trustedProxies: 1, rateLimit: { store } });
    await attempt(config, { from: HOME });
    expect((await attempt(config, { from: HOME, password: "wonderland" })).signedIn).toBe(true);
    expect(store.count("reset")).toBe(1);
    expect(errors(config).map((e) => e.message)).toEqual(["The rate-limit store failed"]);
  });
});

test("a shared store whose clock runs ahead of this instance's refuses none of the free failures", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  // Another instance, five seconds ahead, wrote the streak's end by its own clock.
  const store = new SharedStore(() => Date.now() + 5000);
  const { config, authorize } = world({ trustedProxies: 1, rateLimit: { store } });
  for (let i = 0; i < 5; i++) expect((await attempt(config, { from: ATTACKER })).status).toBe(200);
  expect(authorize).toHaveBeenCalledTimes(5);
});

describe("what the attempt asks of the app", () => {
  test("an account function that throws: the sign-in goes on, counted by address alone, with one error line", async () => {
    const boom = new Error("boom");
    const { config } = world({
      trustedProxies: 1,
      rateLimit: {
        credentials: {
          account: () => {
            throw boom;
          },
        },
      },
    });
    const { signedIn, jar } = await attempt(config, { from: HOME, password: "wonderland" });
    expect(signedIn).toBe(true);
    // No account to remember the browser for: no device cookie.
    expect(jar.cookies.has("gatehouse.device")).toBe(false);
    const [logged, ...more] = errors(config);
    expect(more).toEqual([]);
    expect(logged?.message).toBe("rateLimit.credentials.account threw");
    expect(logged?.cause).toBe(boom);
  });

  test("with the backoff off, the account function is never called", async () => {
    const account = vi.fn(() => "alice");
    const { config } = world({
      trustedProxies: 1,
      rateLimit: { credentials: { failures: false, account } },
    });
    expect((await attempt(config, { from: HOME })).status).toBe(200);
    expect((await attempt(config, { from: HOME, password: "wonderland" })).signedIn).toBe(true);
    expect(account).not.toHaveBeenCalled();
  });

  test("with both credentials limits off, the client's address is never asked for", async () => {
    const clientAddress = vi.fn(() => HOME);
    const { config, authorize } = world({
      clientAddress,
      rateLimit: { credentials: { perClient: false, failures: false } },
    });
    for (let i = 0; i < 3; i++) expect((await attempt(config)).status).toBe(200);
    expect(authorize).toHaveBeenCalledTimes(3);
    expect(clientAddress).not.toHaveBeenCalled();
  });
});
