/**
 * The per-client and per-address limits' rules through `Auth()`, with the default memory store and
 * with any other store (which the limiter reaches through the store contract alone): the wait a
 * refusal names is the rest of the window, clients and addresses are counted apart, a limit set to
 * `false` is off, a store that fails lets the request through with one error line, and the log
 * line of a refusal names the limit.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig, RateLimitStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { MemoryRateLimitStore } from "../src/lib/features/rate-limit/memory.js";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A store that keeps its counters in memory but is, to the limiter, any other store. */
function otherStore(): RateLimitStore {
  const inner = MemoryRateLimitStore();
  return {
    hit: (key, windowMs, options) => inner.hit(key, windowMs, options),
    peek: (key) => inner.peek(key),
    reset: (key) => inner.reset(key),
  };
}

function emailWorld(rateLimit: AuthConfig["rateLimit"]) {
  const sent: string[] = [];
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedProxies: 1,
    logger,
    adapter: MemoryAdapter(),
    rateLimit,
    providers: [
      Email({
        sendVerificationRequest: async ({ identifier }) => {
          sent.push(identifier);
        },
      }),
    ],
  };
  return { config, sent, logger };
}

async function requestEmail(config: AuthConfig, email: string, client: string) {
  const jar = new Jar();
  const csrf = await csrfToken(config, jar);
  return send(config, jar, "/auth/signin/email", {
    form: { csrfToken: csrf, email },
    headers: { "x-forwarded-for": client, "x-auth-return-redirect": "1" },
  });
}

function warnings(config: AuthConfig): string[] {
  return (config.logger as ReturnType<typeof recordingLogger>).warn.mock.calls.map(
    ([kind, error]) => `${kind}: ${(error as Error).message}`,
  );
}

/** A refusal's log line names the limit and a short hash of what it counts; this is that name. */
function limitNames(config: AuthConfig): string[] {
  return warnings(config).map((line) => /\(limit ([^)]+)\)/.exec(line)?.[1] ?? line);
}

const stores: [string, () => RateLimitStore | undefined][] = [
  ["the memory store", () => undefined],
  ["another store", otherStore],
];

for (const [name, makeStore] of stores) {
  describe(`per client, with ${name}`, () => {
    test("a client over the limit waits the rest of the window; another client is counted apart", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const { config, sent } = emailWorld({
        store: makeStore(),
        email: { perAddress: false, perClient: { max: 1, windowSeconds: 120 } },
      });
      expect((await requestEmail(config, "a@example.com", "192.0.2.1")).status).toBe(200);
      const refused = await requestEmail(config, "b@example.com", "192.0.2.1");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("120");
      expect((await requestEmail(config, "c@example.com", "192.0.2.2")).status).toBe(200);
      expect((await requestEmail(config, "d@example.com", "192.0.2.2")).status).toBe(429);
      expect(sent).toEqual(["a@example.com", "c@example.com"]);
      const logged = warnings(config);
      expect(logged).toHaveLength(2);
      expect(logged[0]).toMatch(
        /^client-error: Too many email requests from one client \(limit email\.perClient \S{8}\); retry in 120 s$/,
      );
      // Each client's counter has its own name (a hash of its address), never the address.
      const [first, second] = limitNames(config);
      expect(first).not.toBe(second);
      expect(logged.join("\n")).not.toContain("192.0.2.");
    });
  });

  describe(`per address, with ${name}`, () => {
    test("an address over the limit waits the rest of the window; another address is counted apart", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const { config, sent } = emailWorld({
        store: makeStore(),
        email: { perClient: false, perAddress: { max: 1, windowSeconds: 60 } },
      });
      expect((await requestEmail(config, "a@example.com", "192.0.2.1")).status).toBe(200);
      const refused = await requestEmail(config, "a@example.com", "192.0.2.2");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("60");
      expect((await requestEmail(config, "b@example.com", "192.0.2.3")).status).toBe(200);
      expect(sent).toEqual(["a@example.com", "b@example.com"]);
      const logged = warnings(config);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(
        /^client-error: Too many sign-in emails to one address \(limit email\.perAddress \S{8}\); retry in 60 s$/,
      );
      expect(logged[0]).not.toContain("a@example.com");
    });
  });
}

test("perAddress: false lifts the per-address limit alone", async () => {
  const { config, sent, logger } = emailWorld({
    email: { perAddress: false, perClient: { max: 100, windowSeconds: 60 } },
  });
  for (let i = 0; i < 5; i++) {
    expect((await requestEmail(config, "a@example.com", `192.0.2.${i + 1}`)).status).toBe(200);
  }
  expect(sent).toHaveLength(5);
  expect(logger.error).not.toHaveBeenCalled();
});

test("a store that fails lets sign-in emails through, with one error line each", async () => {
  const failing: RateLimitStore = {
    hit: () => Promise.reject(new Error("store down")),
    peek: () => Promise.reject(new Error("store down")),
    reset: () => Promise.reject(new Error("store down")),
  };
  const { config, sent, logger } = emailWorld({ store: failing, email: { perClient: false } });
  expect((await requestEmail(config, "a@example.com", "192.0.2.1")).status).toBe(200);
  expect(sent).toEqual(["a@example.com"]);
  const errors = logger.error.mock.calls.map(([error]) => error as Error);
  expect(errors.map((e) => e.message)).toEqual(["The rate-limit store failed"]);
  expect(errors[0]?.cause).toEqual(new Error("store down"));
});
