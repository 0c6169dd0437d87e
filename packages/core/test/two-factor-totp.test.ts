/**
 * TOTP as RFC 6238 defines it (its Appendix B vectors), as an independent implementation computes
 * it (the `otpauth` package), with the window, reuse and input rules of a sign-in check.
 */
import { Secret, TOTP, URI } from "otpauth";
import { describe, expect, test } from "vitest";
import {
  base32Decode,
  base32Encode,
  generateTotpSecret,
  otpauthUri,
  type TotpAlgorithm,
  totpCode,
  totpStep,
  verifyTotp,
} from "../src/lib/features/two-factor/totp.js";

const ascii = (text: string) => new TextEncoder().encode(text);

/** RFC 6238 Appendix B: the seed of each mode is "1234567890" repeated to the hash's size. */
const seeds: Record<TotpAlgorithm, Uint8Array> = {
  "SHA-1": ascii("12345678901234567890"),
  "SHA-256": ascii("12345678901234567890123456789012"),
  "SHA-512": ascii("1234567890123456789012345678901234567890123456789012345678901234"),
};

const appendixB: [number, TotpAlgorithm, string][] = [
  [59, "SHA-1", "94287082"],
  [59, "SHA-256", "46119246"],
  [59, "SHA-512", "90693936"],
  [1111111109, "SHA-1", "07081804"],
  [1111111109, "SHA-256", "68084774"],
  [1111111109, "SHA-512", "25091201"],
  [1111111111, "SHA-1", "14050471"],
  [1111111111, "SHA-256", "67062674"],
  [1111111111, "SHA-512", "99943326"],
  [1234567890, "SHA-1", "89005924"],
  [1234567890, "SHA-256", "91819424"],
  [1234567890, "SHA-512", "93441116"],
  [2000000000, "SHA-1", "69279037"],
  [2000000000, "SHA-256", "90698825"],
  [2000000000, "SHA-512", "38618901"],
  [20000000000, "SHA-1", "65353130"],
  [20000000000, "SHA-256", "77737706"],
  [20000000000, "SHA-512", "47863826"],
];

const otpauthAlgorithm = { "SHA-1": "SHA1", "SHA-256": "SHA256", "SHA-512": "SHA512" } as const;

describe("RFC 6238 Appendix B", () => {
  test.each(appendixB)("at %i s, %s gives %s", async (seconds, algorithm, expected) => {
    const step = totpStep(seconds * 1000);
    expect(step).toBe(Math.floor(seconds / 30));
    expect(await totpCode(seeds[algorithm], step, { algorithm, digits: 8 })).toBe(expected);
    expect(
      await verifyTotp(seeds[algorithm], expected, {
        algorithm,
        digits: 8,
        now: seconds * 1000,
        window: 0,
      }),
    ).toBe(step);
  });

  test("the base32 spelling of a seed gives the same codes as its bytes", async () => {
    const secret = base32Encode(seeds["SHA-1"]);
    expect(secret).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(await totpCode(secret, totpStep(59_000), { digits: 8 })).toBe("94287082");
  });
});

describe("against the otpauth package", () => {
  test("random secrets, times, hashes, lengths and periods give the same codes", async () => {
    const algorithms: TotpAlgorithm[] = ["SHA-1", "SHA-256", "SHA-512"];
    for (let i = 0; i < 60; i++) {
      const secret = generateTotpSecret();
      const algorithm = algorithms[i % 3]!;
      const digits = 6 + (i % 3);
      const period = i % 2 === 0 ? 30 : 60;
      const timestamp = Math.floor(Math.random() * 4_000_000_000_000);
      const theirs = TOTP.generate({
        secret: Secret.fromBase32(secret),
        algorithm: otpauthAlgorithm[algorithm],
        digits,
        period,
        timestamp,
      });
      const step = totpStep(timestamp, period);
      expect(await totpCode(secret, step, { algorithm, digits, period })).toBe(theirs);
      expect(await verifyTotp(secret, theirs, { algorithm, digits, period, now: timestamp })).toBe(
        step,
      );
    }
  });

  test("a step past 2^32 sets the counter's high word as otpauth does", async () => {
    const secret = generateTotpSecret();
    const step = 2 ** 33 + 5;
    const theirs = TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: step * 30_000 });
    expect(await totpCode(secret, step)).toBe(theirs);
  });

  test("base32 encodes as otpauth's Secret does, for every length up to 41 bytes", () => {
    for (let length = 0; length <= 41; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const encoded = base32Encode(bytes);
      expect(encoded).toBe(new Secret({ buffer: bytes.slice().buffer }).base32);
      expect(base32Decode(encoded)).toEqual(bytes);
    }
  });

  test("otpauth parses our URI into the same issuer, account, secret and parameters", async () => {
    const secret = generateTotpSecret();
    const uri = otpauthUri({
      issuer: "Acme & Co Ünïcode",
      account: "alice+2fa@example.com",
      secret,
      digits: 8,
      period: 60,
      algorithm: "SHA-256",
    });
    const parsed = URI.parse(uri);
    expect(parsed).toBeInstanceOf(TOTP);
    const totp = parsed as TOTP;
    expect(totp.issuer).toBe("Acme & Co Ünïcode");
    expect(totp.label).toBe("alice+2fa@example.com");
    expect(totp.secret.base32).toBe(secret);
    expect(totp.algorithm).toBe("SHA256");
    expect(totp.digits).toBe(8);
    expect(totp.period).toBe(60);
    const now = Date.now();
    expect(totp.generate({ timestamp: now })).toBe(
      await totpCode(secret, totpStep(now, 60), { digits: 8, period: 60, algorithm: "SHA-256" }),
    );
  });
});

describe("otpauthUri", () => {
  test("writes the label, issuer and every parameter, percent-encoded", () => {
    const uri = otpauthUri({
      issuer: "My App",
      account: "bob smith@example.com",
      secret: "jbsw y3dp ehpk 3pxp",
    });
    expect(uri).toBe(
      "otpauth://totp/My%20App:bob%20smith%40example.com" +
        "?secret=JBSWY3DPEHPK3PXP&issuer=My%20App&algorithm=SHA1&digits=6&period=30",
    );
  });

  test("an account with a colon is encoded; an issuer with one is refused", () => {
    const secret = generateTotpSecret();
    const uri = otpauthUri({ issuer: "App", account: "a:b", secret });
    expect(uri).toContain("/App:a%3Ab?");
    expect((URI.parse(uri) as TOTP).label).toBe("a:b");
    expect(() => otpauthUri({ issuer: "A:pp", account: "a", secret })).toThrow(TypeError);
  });
});

describe("base32", () => {
  test("RFC 4648 section 10 vectors, written without padding and read with or without it", () => {
    const vectors: [string, string][] = [
      ["", ""],
      ["f", "MY======"],
      ["fo", "MZXQ===="],
      ["foo", "MZXW6==="],
      ["foob", "MZXW6YQ="],
      ["fooba", "MZXW6YTB"],
      ["foobar", "MZXW6YTBOI======"],
    ];
    for (const [text, padded] of vectors) {
      const bare = padded.replace(/=/g, "");
      expect(base32Encode(ascii(text))).toBe(bare);
      expect(new TextDecoder().decode(base32Decode(padded))).toBe(text);
      expect(new TextDecoder().decode(base32Decode(bare))).toBe(text);
    }
  });

  test("reads lower case, spaces and dashes between groups", () => {
    expect(base32Decode("mzxw 6ytb-oi")).toEqual(ascii("foobar"));
    expect(base32Decode(" MZXW6YTBOI==\n")).toEqual(ascii("foobar"));
  });

  test("refuses characters outside the alphabet, inner padding and impossible lengths", () => {
    for (const bad of ["MZXW6YT1", "MZXW6YT0", "MZXW6YT8", "MZXW6YT!", "MZXW6YTé", "MZ=XW6YT"]) {
      expect(() => base32Decode(bad), bad).toThrow(TypeError);
    }
    for (const bad of ["M", "MZX", "MZXW6Y", "MZXW6YTBO"]) {
      expect(() => base32Decode(bad), bad).toThrow(TypeError);
    }
  });

  test("a generated secret is 160 random bits in 32 characters", () => {
    const a = generateTotpSecret();
    const b = generateTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(a)).toHaveLength(20);
    expect(a).not.toBe(b);
  });
});

describe("verifyTotp", () => {
  const secret = generateTotpSecret();
  const step = 56_789_012;
  const mid = step * 30_000 + 15_000;
  const code = (s: number) => totpCode(secret, s);

  test("accepts the previous, current and next step's code and answers with that step", async () => {
    for (const offset of [-1, 0, 1]) {
      expect(await verifyTotp(secret, await code(step + offset), { now: mid })).toBe(step + offset);
    }
  });

  test("refuses codes two steps away, and one step away with a window of 0", async () => {
    expect(await verifyTotp(secret, await code(step - 2), { now: mid })).toBeNull();
    expect(await verifyTotp(secret, await code(step + 2), { now: mid })).toBeNull();
    expect(await verifyTotp(secret, await code(step - 1), { now: mid, window: 0 })).toBeNull();
    expect(await verifyTotp(secret, await code(step + 1), { now: mid, window: 0 })).toBeNull();
    expect(await verifyTotp(secret, await code(step + 2), { now: mid, window: 2 })).toBe(step + 2);
  });

  test("the step changes exactly at the period's edge", async () => {
    const edge = step * 30_000;
    const current = await code(step);
    expect(await verifyTotp(secret, current, { now: edge, window: 0 })).toBe(step);
    expect(await verifyTotp(secret, current, { now: edge - 1, window: 0 })).toBeNull();
    expect(await verifyTotp(secret, current, { now: edge + 29_999, window: 0 })).toBe(step);
    expect(await verifyTotp(secret, current, { now: edge + 30_000, window: 0 })).toBeNull();
    // With the default window the code lives from the start of the step before to the end of
    // the step after.
    expect(await verifyTotp(secret, current, { now: edge - 30_000 })).toBe(step);
    expect(await verifyTotp(secret, current, { now: edge - 30_001 })).toBeNull();
    expect(await verifyTotp(secret, current, { now: edge + 59_999 })).toBe(step);
    expect(await verifyTotp(secret, current, { now: edge + 60_000 })).toBeNull();
  });

  test("a Date is read like milliseconds, and a longer period moves the edges", async () => {
    const at = new Date(mid);
    expect(await verifyTotp(secret, await code(step), { now: at })).toBe(step);
    const long = await totpCode(secret, 1000, { period: 90 });
    expect(await verifyTotp(secret, long, { period: 90, now: 1000 * 90_000, window: 0 })).toBe(
      1000,
    );
    expect(await verifyTotp(secret, long, { now: 1000 * 90_000, window: 0 })).toBeNull();
  });

  test("no code is accepted twice: its own step and earlier ones are refused after use", async () => {
    const current = await code(step);
    const used = await verifyTotp(secret, current, { now: mid });
    expect(used).toBe(step);
    expect(await verifyTotp(secret, current, { now: mid, lastUsedStep: used })).toBeNull();
    expect(await verifyTotp(secret, await code(step - 1), { now: mid, lastUsedStep: used })).toBe(
      null,
    );
    // The next step's code still works, once.
    const next = await verifyTotp(secret, await code(step + 1), { now: mid, lastUsedStep: used });
    expect(next).toBe(step + 1);
    expect(
      await verifyTotp(secret, await code(step + 1), { now: mid, lastUsedStep: next }),
    ).toBeNull();
    // A last used step from long ago refuses nothing in the window.
    expect(await verifyTotp(secret, current, { now: mid, lastUsedStep: step - 5 })).toBe(step);
    expect(await verifyTotp(secret, current, { now: mid, lastUsedStep: null })).toBe(step);
  });

  test("codes of the wrong length or with anything but digits are refused without throwing", async () => {
    const current = await code(step);
    const refused: unknown[] = [
      current.slice(1),
      `${current}0`,
      `${current.slice(0, 5)}a`,
      "",
      "      ",
      `-${current.slice(1)}`,
      `+${current.slice(1)}`,
      current.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))), // full-width digits
      Number(current),
      undefined,
      null,
      { toString: () => current },
      "9".repeat(10_000),
    ];
    for (const input of refused) {
      expect(await verifyTotp(secret, input, { now: mid }), String(input)).toBeNull();
    }
  });

  test("spaces between the digits, as apps show them, are ignored", async () => {
    const current = await code(step);
    const spaced = `${current.slice(0, 3)} ${current.slice(3)}`;
    expect(await verifyTotp(secret, spaced, { now: mid })).toBe(step);
    expect(await verifyTotp(secret, ` ${current}\n`, { now: mid })).toBe(step);
  });

  test("another secret's code is refused", async () => {
    const other = await totpCode(generateTotpSecret(), step);
    // One time in a million the two secrets share this code; then the test is meaningless,
    // not wrong, so compare against the code before asserting.
    if (other !== (await code(step)))
      expect(await verifyTotp(secret, other, { now: mid, window: 0 })).toBeNull();
  });

  test("bad options and bad secrets are the caller's mistakes and throw", async () => {
    await expect(verifyTotp(secret, "123456", { digits: 5 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(secret, "123456", { digits: 9 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(secret, "123456", { period: 0 })).rejects.toThrow(RangeError);
    await expect(verifyTotp(secret, "123456", { window: -1 })).rejects.toThrow(RangeError);
    await expect(
      verifyTotp(secret, "123456", { algorithm: "MD5" as TotpAlgorithm }),
    ).rejects.toThrow(RangeError);
    await expect(verifyTotp("not base32!", "123456")).rejects.toThrow(TypeError);
    await expect(verifyTotp("", "123456")).rejects.toThrow(TypeError);
    await expect(totpCode(secret, -1)).rejects.toThrow(RangeError);
    await expect(totpCode(secret, 1.5)).rejects.toThrow(RangeError);
  });
});
