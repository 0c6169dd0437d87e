/**
 * The client address rules at their edges: which texts are addresses and how they are written
 * back, which CIDR ranges and proxy counts `trustedProxies` accepts (and the error that names the
 * setting), how ranges match across byte boundaries and address families, blank
 * `X-Forwarded-For` entries, and the `clientAddress` hook (the request it is given, a hook that
 * throws or answers nothing, the integration's fallback, one call per request).
 */
import { Auth, clientAddressFallback } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import {
  clientAddress,
  formatIp,
  forwardedClient,
  parseIp,
  resolveTrustedProxies,
} from "../src/lib/client-address.js";
import type { RequestInternal } from "../src/lib/request.js";
import type { ClientAddressResolver } from "../src/lib/types/client-address.js";
import { credentialsConfig, csrfToken, Jar, ORIGIN, recordingLogger } from "./helpers.js";

/** The address as Gatehouse writes it, or null when the text is no address. */
function normal(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

const hops = (n: number) => resolveTrustedProxies(n, undefined)!;
const ranges = (...cidrs: string[]) => resolveTrustedProxies(cidrs, undefined)!;

describe("what is an address", () => {
  test.each([
    ["1a.2.3.4", "a letter inside an IPv4 part"],
    ["1-2.3.4", "a separator other than a dot"],
    ["1..2.3", "an empty IPv4 part"],
    [".1.2.3", "a leading dot"],
    ["1::2::3", "two '::'"],
    ["1.2.3.4::1", "an IPv4 tail before '::'"],
    ["::1.2.3.4:1", "an IPv4 part that is not the last group"],
    ["::1.2.3", "an IPv4 tail with three parts"],
    ["::12345", "a group of five hex digits"],
    ["1:2:3:4::5:6:7:8", "'::' standing for no group at all"],
    ["x[::1]", "text before the brackets"],
    ["[::1]:443x", "text after the port"],
    [`fe80::1%${"e".repeat(57)}`, "65 characters"],
  ])("%j is no address (%s)", (text) => {
    expect(parseIp(text)).toBeNull();
  });

  test.each([
    ["1:2:3:4:5:6::7", "1:2:3:4:5:6:0:7"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
    ["0:0:0:0:0:ffff:1.2.3.4", "1.2.3.4"],
    ["[::1]", "::1"],
    [" 203.0.113.7 ", "203.0.113.7"],
    [`fe80::1%${"e".repeat(56)}`, "fe80::1"],
  ])("%j reads as %j", (text, written) => {
    expect(normal(text)).toBe(written);
  });

  test.each([
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ["1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"],
    ["1:0:0:2:3:4:5:6", "1::2:3:4:5:6"],
    ["1:0:0:2:0:0:3:4", "1::2:0:0:3:4"],
    ["1:0:0:0:2:0:0:3", "1::2:0:0:3"],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["1:0:0:0:0:0:2:3", "1::2:3"],
  ])(
    "%j is written %j: the first longest run of two or more zero groups becomes '::'",
    (text, written) => {
      expect(normal(text)).toBe(written);
    },
  );
});

describe("trustedProxies", () => {
  test("proxy counts from 0 to 32; the error names the setting it came from", () => {
    expect(resolveTrustedProxies(32, undefined)).toEqual({ hops: 32 });
    expect(() => resolveTrustedProxies(33, undefined)).toThrow(
      /^trustedProxies must be a whole number of proxies/,
    );
    expect(() => resolveTrustedProxies(undefined, "33")).toThrow(
      /^AUTH_TRUSTED_PROXIES must be a whole number of proxies/,
    );
    expect(resolveTrustedProxies(undefined, "12")).toEqual({ hops: 12 });
    expect(resolveTrustedProxies(undefined, " 2 ")).toEqual({ hops: 2 });
  });

  test("a value that is neither a number nor a list is refused as such", () => {
    expect(() => resolveTrustedProxies("10.0.0.0/8" as never, undefined)).toThrow(
      /^trustedProxies must be a number of proxies or a list of CIDR ranges$/,
    );
  });

  test.each<[string, unknown]>([
    ["an entry that is not a string", 5],
    ["two prefixes", "10.0.0.0/8/9"],
    ["no address", "nonsense/8"],
    ["a prefix with a letter before it", "10.0.0.0/x8"],
    ["a prefix with a letter after it", "10.0.0.0/8x"],
    ["a prefix beyond the address's bits", "10.0.0.0/33"],
    ["a prefix on an IPv4-mapped IPv6 address", "::ffff:10.0.0.0/104"],
    ["a prefix on an IPv4-mapped IPv6 address that would fit IPv4", "::ffff:10.0.0.0/24"],
  ])("a range with %s is refused, and the error names the setting", (_, entry) => {
    expect(() => resolveTrustedProxies([entry] as never, undefined)).toThrow(
      /^trustedProxies has an entry that is not a CIDR range/,
    );
  });

  test("ranges with spaces around them, a /32, and an IPv4-mapped address alone are accepted", () => {
    expect(resolveTrustedProxies([" 10.0.0.0/8 "], undefined)).toMatchObject({
      ranges: [{ bits: 8 }],
    });
    expect(resolveTrustedProxies(["10.0.0.1/32"], undefined)).toMatchObject({
      ranges: [{ bits: 32 }],
    });
    expect(resolveTrustedProxies(["::ffff:10.0.0.1"], undefined)).toMatchObject({
      ranges: [{ ip: { version: 4 }, bits: 32 }],
    });
  });

  test("an empty list trusts no proxy", () => {
    expect(resolveTrustedProxies([], undefined)).toBeUndefined();
  });
});

describe("matching X-Forwarded-For entries against ranges", () => {
  test("a prefix inside a byte is compared bit by bit", () => {
    // 31 is 0001 1111: its first four bits are those of 16 (0001 0000).
    expect(forwardedClient("6.6.6.6, 31.0.0.1", ranges("16.0.0.0/4"))).toBe("6.6.6.6");
    expect(forwardedClient("6.6.6.6, 32.0.0.1", ranges("16.0.0.0/4"))).toBe("32.0.0.1");
  });

  test("a /16 compares the second byte too", () => {
    expect(forwardedClient("6.6.6.6, 10.2.3.4", ranges("10.1.0.0/16"))).toBe("10.2.3.4");
  });

  test("an IPv6 range compares whole 16-bit groups, high bytes included", () => {
    expect(forwardedClient("6.6.6.6, 2001:eb8::1", ranges("2001:db8::/32"))).toBe("2001:eb8::1");
  });

  test("an IPv6 range never matches an IPv4 address", () => {
    expect(forwardedClient("6.6.6.6, 1.2.3.4", ranges("::/0"))).toBe("1.2.3.4");
  });

  test("blank entries are not counted", () => {
    expect(forwardedClient("203.0.113.7, ", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("203.0.113.7,,", hops(1))).toBe("203.0.113.7");
  });
});

/** What `clientAddress` reads from a request's context. */
function source(hook: ClientAddressResolver | undefined, headers: Record<string, string> = {}) {
  const original = new Request(`${ORIGIN}/auth/session`, { headers });
  const req = { headers: original.headers, original } as unknown as RequestInternal;
  const logger = recordingLogger();
  return { req, config: { clientAddress: hook, trustedProxies: undefined, logger }, logger };
}

const fallback = (hook: ClientAddressResolver) =>
  Object.assign(hook, { [clientAddressFallback]: true }) as ClientAddressResolver;

describe("the clientAddress hook", () => {
  test("is asked once per request, however often the address is needed", async () => {
    const hook = vi.fn(() => "203.0.113.7");
    const ctx = source(hook);
    expect(await clientAddress(ctx)).toBe("203.0.113.7");
    expect(await clientAddress(ctx)).toBe("203.0.113.7");
    expect(hook).toHaveBeenCalledTimes(1);
  });

  test("a hook that throws leaves the address unknown and is logged as an error", async () => {
    const failure = new Error("platform said no");
    const ctx = source(() => {
      throw failure;
    });
    expect(await clientAddress(ctx)).toBeNull();
    const errors = ctx.logger.error.mock.calls.map(([error]) => error as Error);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toBe("The clientAddress hook threw");
    expect(errors[0]?.cause).toBe(failure);
  });

  test("a hook that answers nothing leaves the address unknown without an error", async () => {
    for (const answer of [undefined, null, 42 as never]) {
      const ctx = source(() => answer);
      expect(await clientAddress(ctx)).toBeNull();
      expect(ctx.logger.error).not.toHaveBeenCalled();
    }
  });

  test("the integration's fallback that finds no address warns about an unread X-Forwarded-For, like no hook", async () => {
    const ctx = source(
      fallback(() => null),
      { "x-forwarded-for": "203.0.113.7" },
    );
    expect(await clientAddress(ctx)).toBeNull();
    expect(ctx.logger.warn).toHaveBeenCalledWith("untrusted-forwarded-for", expect.any(Error));
  });

  test("the integration's fallback that finds an address is used", async () => {
    const ctx = source(
      fallback(() => "203.0.113.7"),
      { "x-forwarded-for": "6.6.6.6" },
    );
    expect(await clientAddress(ctx)).toBe("203.0.113.7");
    expect(ctx.logger.warn).not.toHaveBeenCalled();
  });

  test("an app's own hook that finds no address does not warn", async () => {
    const ctx = source(() => null, { "x-forwarded-for": "203.0.113.7" });
    expect(await clientAddress(ctx)).toBeNull();
    expect(ctx.logger.warn).not.toHaveBeenCalled();
  });

  test("is given the very Request object handed to Auth(), also for a POST", async () => {
    const seen: Request[] = [];
    const config: AuthConfig = credentialsConfig({
      clientAddress: (request) => {
        seen.push(request);
        return "203.0.113.7";
      },
    });
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrfToken: token, username: "alice", password: "wrong" }),
    });
    seen.length = 0;
    await Auth(request, config);
    expect(seen.length).toBeGreaterThan(0);
    for (const given of seen) expect(given).toBe(request);
  });
});
