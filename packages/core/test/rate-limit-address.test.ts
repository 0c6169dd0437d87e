/**
 * The client address rules as pure functions (X-Forwarded-For through trusted proxies, address
 * parsing, /64 buckets), `AUTH_TRUSTED_PROXIES`, and the address recorded with `recordIp`.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  addressBucket,
  forwardedClient,
  parseIp,
  resolveTrustedProxies,
} from "../src/lib/client-address.js";
import { backoffSeconds, unknownClientBackoff } from "../src/lib/features/rate-limit/index.js";
import { credentialsConfig, csrfToken, Jar, recordingLogger, send } from "./helpers.js";

const hops = (n: number) => resolveTrustedProxies(n, undefined)!;
const ranges = (...cidrs: string[]) => resolveTrustedProxies(cidrs, undefined)!;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("forwardedClient", () => {
  test("one hop: the rightmost entry, whatever the client wrote before it", () => {
    expect(forwardedClient("6.6.6.6, 203.0.113.7", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient(" 203.0.113.7 ", hops(1))).toBe("203.0.113.7");
  });

  test("two hops: the second entry from the right; a short header gives its leftmost entry", () => {
    expect(forwardedClient("6.6.6.6, 203.0.113.7, 10.0.0.2", hops(2))).toBe("203.0.113.7");
    expect(forwardedClient("203.0.113.7", hops(2))).toBe("203.0.113.7");
  });

  test("ranges: the rightmost entry outside them; all trusted gives the leftmost", () => {
    const trust = ranges("10.0.0.0/8", "fd00::/8");
    expect(forwardedClient("6.6.6.6, 203.0.113.7, 10.1.1.1, fd00::3", trust)).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5, 10.0.0.6", trust)).toBe("10.0.0.5");
    expect(forwardedClient("203.0.113.7, 10.0.0.1", ranges("10.0.0.1"))).toBe("203.0.113.7");
  });

  test("a missing header, or a chosen entry that is no address, is unknown", () => {
    expect(forwardedClient(null, hops(1))).toBeNull();
    expect(forwardedClient("", hops(1))).toBeNull();
    expect(forwardedClient("203.0.113.7, unknown", hops(1))).toBeNull();
    expect(forwardedClient("<script>, 10.0.0.1", ranges("10.0.0.0/8"))).toBeNull();
  });

  test("ports, brackets, zones and IPv4-mapped IPv6 are read as the address", () => {
    expect(forwardedClient("[2001:DB8::1]:443", hops(1))).toBe("2001:db8::1");
    expect(forwardedClient("203.0.113.7:5000", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("::ffff:203.0.113.7", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("fe80::1%eth0", hops(1))).toBe("fe80::1");
  });
});

describe("addresses and buckets", () => {
  test("IPv4 counts per address, IPv6 per /64", () => {
    expect(addressBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressBucket("::ffff:198.51.100.1")).toBe("198.51.100.1");
  });

  test.each(["", "256.1.1.1", "1.2.3", "2001:db8:::1", "1:2:3:4:5:6:7:8:9", "localhost", "::g"])(
    "%j is no address",
    (text) => {
      expect(parseIp(text)).toBeNull();
      expect(addressBucket(text)).toBeNull();
    },
  );
});

describe("trustedProxies and AUTH_TRUSTED_PROXIES", () => {
  test("a number, or comma-separated CIDR ranges; 0 and empty mean none", () => {
    expect(resolveTrustedProxies(undefined, "2")).toEqual({ hops: 2 });
    const fromEnv = resolveTrustedProxies(undefined, "10.0.0.0/8, 192.168.1.1")!;
    expect(forwardedClient("203.0.113.7, 192.168.1.1", fromEnv)).toBe("203.0.113.7");
    expect(resolveTrustedProxies(0, undefined)).toBeUndefined();
    expect(resolveTrustedProxies(undefined, " ")).toBeUndefined();
    expect(resolveTrustedProxies(undefined, undefined)).toBeUndefined();
    // The configuration wins over the environment.
    expect(resolveTrustedProxies(1, "3")).toEqual({ hops: 1 });
  });

  test.each([["x"], ["10.0.0.0/8, nope"], ["1.5"]])("AUTH_TRUSTED_PROXIES=%j is refused", (env) => {
    expect(() => resolveTrustedProxies(undefined, env)).toThrow(/AUTH_TRUSTED_PROXIES/);
  });

  test("AUTH_TRUSTED_PROXIES from the environment decides which address a session records", async () => {
    vi.stubEnv("AUTH_TRUSTED_PROXIES", "1");
    const adapter = MemoryAdapter();
    await adapter.createUser({ id: "user-1", email: "alice@example.com", emailVerified: null });
    const config = credentialsConfig({
      adapter,
      session: { strategy: "database", recordIp: true },
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf, username: "alice", password: "wonderland" },
      headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.23" },
    });
    const [row] = await adapter.listSessionsByUserId("user-1");
    expect(row?.ip).toBe("198.51.100.0");
  });
});

describe("X-Forwarded-For without trustedProxies", () => {
  async function signIn(config: AuthConfig, forwardedFor?: string) {
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf, username: "alice", password: "wrong" },
      headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
    });
  }
  const untrusted = (logger: ReturnType<typeof recordingLogger>) =>
    logger.warn.mock.calls.filter(([code]) => code === "untrusted-forwarded-for");

  test("is said once per configuration, with what to set and without the header's value", async () => {
    const logger = recordingLogger();
    const config = credentialsConfig({ logger });
    for (let i = 0; i < 3; i++) await signIn(config, "203.0.113.77");
    const said = untrusted(logger);
    expect(said).toHaveLength(1);
    const message = String(said[0]![1]?.message);
    expect(message).toContain("trustedProxies");
    expect(message).not.toContain("203.0.113.77");
    // Another configuration is told too: the warning belongs to the configuration.
    const other = recordingLogger();
    await signIn(credentialsConfig({ logger: other }), "203.0.113.77");
    expect(untrusted(other)).toHaveLength(1);
  });

  test("is not said without the header, or when the proxy is trusted or a hook gives the address", async () => {
    for (const overrides of [
      {},
      { trustedProxies: 1 },
      { clientAddress: () => "198.51.100.1" },
    ] satisfies Partial<AuthConfig>[]) {
      const logger = recordingLogger();
      const config = credentialsConfig({ logger, ...overrides });
      await signIn(
        config,
        "trustedProxies" in overrides || "clientAddress" in overrides ? "203.0.113.77" : undefined,
      );
      expect(untrusted(logger)).toHaveLength(0);
    }
  });
});

describe("backoff arithmetic", () => {
  const rule = { freeAttempts: 5, baseSeconds: 1, maxSeconds: 900 };

  test("nothing for the free failures, then 1 s doubling up to the maximum", () => {
    expect([0, 5, 6, 7, 8, 15, 16, 1000].map((n) => backoffSeconds(n, rule))).toEqual([
      0, 0, 1, 2, 4, 512, 900, 900,
    ]);
  });

  test("an unknown client gets ten times the free failures and waits of at most a minute", () => {
    expect(unknownClientBackoff(rule)).toEqual({
      freeAttempts: 50,
      baseSeconds: 1,
      maxSeconds: 60,
    });
  });
});
