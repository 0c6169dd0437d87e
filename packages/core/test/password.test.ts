/**
 * Password hashing (`@gatehousejs/core/password`): hashes made here, hashes made directly with
 * `node:crypto` in the documented format (and the example app's older one), and stored values
 * that are broken or hostile. scrypt is watched through a spy on `node:crypto` so the tests can
 * say which parameters ran, and that a hostile hash never reached it, without timing anything.
 */
import crypto from "node:crypto";
import * as main from "@gatehousejs/core";
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  verifyPassword,
} from "@gatehousejs/core/password";
import { afterEach, describe, expect, test, vi } from "vitest";

/** Cheap parameters for tests that are not about the defaults. */
const FAST = { N: 2 ** 10, r: 8, p: 1 };

afterEach(() => {
  vi.restoreAllMocks();
});

/** Hashes in the documented stored form, written without the module under test. */
function storedHash(
  password: string,
  { N, r, p }: { N: number; r: number; p: number },
  salt = crypto.randomBytes(16),
  length = 32,
): string {
  const key = crypto.scryptSync(password.normalize("NFKC"), salt, length, {
    N,
    r,
    p,
    maxmem: 256 * N * r,
  });
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** The example app's earlier format: `scrypt$<salt>$<hash>`, Node's scrypt defaults, 32 bytes. */
function legacyHash(password: string): string {
  const salt = crypto.randomBytes(16);
  const key = crypto.scryptSync(password.normalize("NFKC"), salt, 32);
  return `scrypt$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** The scrypt parameters each call ran with. */
function watchScrypt() {
  const spy = vi.spyOn(crypto, "scrypt");
  return () => spy.mock.calls.map((call) => call[3] as crypto.ScryptOptions);
}

describe("hashPassword and verifyPassword", () => {
  test("a hash in the documented form verifies its password and refuses another", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  test("each hash has its own salt", async () => {
    const [a, b] = await Promise.all([hashPassword("same", FAST), hashPassword("same", FAST)]);
    expect(a).not.toBe(b);
    expect(a?.split("$")[2]).not.toBe(b?.split("$")[2]);
  });

  test("the hash is scrypt of the NFKC password under the stored salt and parameters", async () => {
    const hash = await hashPassword("pässwörd", { N: 2 ** 11, r: 4, p: 2 });
    const [, params, salt = ""] = hash.split("$");
    expect(params).toBe("N=2048,r=4,p=2");
    expect(hash).toBe(
      storedHash("pässwörd", { N: 2 ** 11, r: 4, p: 2 }, Buffer.from(salt, "base64url")),
    );
  });

  test("hashes written elsewhere in the same form verify, whatever their parameters and sizes", async () => {
    const hash = storedHash("elsewhere", { N: 2 ** 12, r: 2, p: 3 }, crypto.randomBytes(24), 64);
    expect(await verifyPassword("elsewhere", hash)).toBe(true);
    expect(await verifyPassword("Elsewhere", hash)).toBe(false);
  });

  test("the example app's older scrypt$<salt>$<hash> hashes still verify", async () => {
    const hash = legacyHash("gatehouse-demo");
    expect(await verifyPassword("gatehouse-demo", hash)).toBe(true);
    expect(await verifyPassword("gatehouse-dem0", hash)).toBe(false);
  });

  test("the same characters in another Unicode form match (NFKC)", async () => {
    const hash = await hashPassword("caf\u00e9 \ufb01 \uff50\uff41\uff53\uff53", FAST);
    // Decomposed é, the letters of the ligature, ASCII for the full-width letters.
    expect(await verifyPassword("cafe\u0301 fi pass", hash)).toBe(true);
    expect(await verifyPassword("cafe fi pass", hash)).toBe(false);
  });

  test("the main entry exports the same functions", () => {
    expect(main.hashPassword).toBe(hashPassword);
    expect(main.verifyPassword).toBe(verifyPassword);
    expect(main.needsRehash).toBe(needsRehash);
    expect(main.MAX_PASSWORD_LENGTH).toBe(MAX_PASSWORD_LENGTH);
  });
});

describe("bad input", () => {
  const good = storedHash("pw", FAST);
  const [, params = "", salt = "", key = ""] = good.split("$");
  const malformed: [string, unknown][] = [
    ["empty", ""],
    ["another scheme", `bcrypt$${params}$${salt}$${key}`],
    ["no hash", `scrypt$${params}$${salt}`],
    ["an extra part", `${good}$x`],
    ["an empty salt", `scrypt$${params}$$${key}`],
    ["an empty hash", `scrypt$${params}$${salt}$`],
    ["padding", `${good}=`],
    ["standard base64 characters", `scrypt$${params}$${salt.replace(/.$/, "+")}$${key}`],
    ["a non-canonical last character", `scrypt$${params}$${salt}$${key.slice(0, -1)}B`],
    ["a salt of 4 bytes", `scrypt$${params}$AAAAAA$${key}`],
    ["a hash of 8 bytes", `scrypt$${params}$${salt}$AAAAAAAAAAA`],
    ["a hash of 96 bytes", `scrypt$${params}$${salt}$${"A".repeat(128)}`],
    ["parameters in another order", `scrypt$r=8,N=1024,p=1$${salt}$${key}`],
    ["a leading zero", `scrypt$N=01024,r=8,p=1$${salt}$${key}`],
    ["a missing parameter", `scrypt$N=1024,r=8$${salt}$${key}`],
    ["a negative parameter", `scrypt$N=1024,r=-8,p=1$${salt}$${key}`],
    ["N not a power of two", `scrypt$N=1000,r=8,p=1$${salt}$${key}`],
    ["N below 1024", `scrypt$N=512,r=8,p=1$${salt}$${key}`],
    ["a megabyte", `scrypt$${params}$${salt}$${"A".repeat(2 ** 20)}`],
    ["a number", 42],
    ["an object", { toString: () => good }],
  ];

  test.each(malformed)(
    "a stored hash with %s gives false and needs a rehash",
    async (_, stored) => {
      const calls = watchScrypt();
      await expect(verifyPassword("pw", stored as string)).resolves.toBe(false);
      expect(needsRehash(stored as string)).toBe(true);
      expect(calls()).toEqual([]);
    },
  );

  test("the untouched hash used above does verify (the cases fail for their one change)", async () => {
    expect(await verifyPassword("pw", good)).toBe(true);
  });

  const hostile: [string, string][] = [
    ["N=2^24 (2 GiB)", "N=16777216,r=8,p=1"],
    ["N=2^18, r=8 (256 MiB)", "N=262144,r=8,p=1"],
    ["r=64", "N=1024,r=64,p=1"],
    ["p=17", "N=1024,r=1,p=17"],
    ["N=2^16, r=8, p=4 (four times the work allowed)", "N=65536,r=8,p=4"],
    ["N=2^40", "N=1099511627776,r=8,p=1"],
    ["N=9999999999", "N=9999999999,r=8,p=1"],
  ];

  test.each(hostile)(
    "a stored hash asking for %s is refused without running scrypt",
    async (_, p) => {
      const calls = watchScrypt();
      expect(await verifyPassword("pw", `scrypt$${p}$${salt}$${key}`)).toBe(false);
      expect(calls()).toEqual([]);
    },
  );

  test("the largest parameters within the bounds still verify (N=2^17, r=8, p=1: 128 MiB)", async () => {
    const hash = storedHash("big", { N: 2 ** 17, r: 8, p: 1 });
    expect(await verifyPassword("big", hash)).toBe(true);
  });

  test("hashing with parameters outside the bounds is a RangeError", async () => {
    for (const options of [
      { N: 1000 },
      { N: 512 },
      { N: 2 ** 18 },
      { r: 0 },
      { r: 33 },
      { p: 0 },
      { p: 1.5 },
      { N: 2 ** 16, p: 4 },
      { N: Number.NaN },
    ]) {
      await expect(hashPassword("pw", options), JSON.stringify(options)).rejects.toThrow(
        RangeError,
      );
      expect(() => needsRehash(good, options)).toThrow(RangeError);
    }
  });

  test(`passwords are capped at ${MAX_PASSWORD_LENGTH} characters`, async () => {
    const longest = "x".repeat(MAX_PASSWORD_LENGTH);
    const hash = await hashPassword(longest, FAST);
    expect(await verifyPassword(longest, hash)).toBe(true);
    const tooLong = `${longest}x`;
    const error = await hashPassword(tooLong, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).not.toContain("xxxx");
    const calls = watchScrypt();
    expect(await verifyPassword(tooLong, hash)).toBe(false);
    expect(await verifyPassword(tooLong, null)).toBe(false);
    expect(await verifyPassword("x".repeat(10 ** 6), hash)).toBe(false);
    expect(calls()).toEqual([]);
  });

  test("a password that is not a well-formed string is refused", async () => {
    const hash = await hashPassword("pw\ufffd", FAST);
    // A lone surrogate would be written as U+FFFD: it must not match a password that has one.
    await expect(hashPassword("pw\ud800", FAST)).rejects.toThrow(TypeError);
    expect(await verifyPassword("pw\ud800", hash)).toBe(false);
    expect(await verifyPassword("pw\ufffd", hash)).toBe(true);
    await expect(hashPassword(undefined as unknown as string)).rejects.toThrow(TypeError);
    expect(await verifyPassword(["pw"] as unknown as string, hash)).toBe(false);
  });
});

describe("unknown accounts", () => {
  test("a missing hash (null or undefined) answers false after one scrypt run with the default parameters", async () => {
    const calls = watchScrypt();
    expect(await verifyPassword("anything", null)).toBe(false);
    expect(await verifyPassword("anything", undefined)).toBe(false);
    expect(calls()).toMatchObject([
      { N: 2 ** 15, r: 8, p: 1 },
      { N: 2 ** 15, r: 8, p: 1 },
    ]);
  });

  test("with options it does the work of a hash made with those options", async () => {
    const options = { N: 2 ** 14, r: 8, p: 2 };
    const stored = await hashPassword("real", options);
    const calls = watchScrypt();
    expect(await verifyPassword("real", stored)).toBe(true);
    expect(await verifyPassword("real", null, options)).toBe(false);
    const [known, unknown] = calls();
    expect(unknown).toEqual(known);
    expect(crypto.scrypt).toHaveBeenCalledTimes(2);
  });
});

describe("needsRehash", () => {
  test("a hash made with the current parameters does not need one", async () => {
    expect(needsRehash(await hashPassword("pw"))).toBe(false);
    expect(needsRehash(await hashPassword("pw", FAST), FAST)).toBe(false);
  });

  test("a hash made with other parameters, sizes or the older form does", async () => {
    const fast = await hashPassword("pw", FAST);
    expect(needsRehash(fast)).toBe(true);
    expect(needsRehash(fast, { ...FAST, r: 4 })).toBe(true);
    expect(needsRehash(fast, { ...FAST, p: 2 })).toBe(true);
    expect(needsRehash(storedHash("pw", FAST, crypto.randomBytes(16), 64), FAST)).toBe(true);
    expect(needsRehash(storedHash("pw", FAST, crypto.randomBytes(8)), FAST)).toBe(true);
    expect(needsRehash(legacyHash("pw"), { N: 2 ** 14, r: 8, p: 1 })).toBe(true);
  });

  test("the upgrade on sign-in: verify the old hash, store a new one, and it verifies", async () => {
    const old = legacyHash("gatehouse-demo");
    expect(await verifyPassword("gatehouse-demo", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    const upgraded = await hashPassword("gatehouse-demo");
    expect(needsRehash(upgraded)).toBe(false);
    expect(await verifyPassword("gatehouse-demo", upgraded)).toBe(true);
  });
});
