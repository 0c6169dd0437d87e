/**
 * Backup codes: distinct, in the display format, from an alphabet without look-alikes; stored
 * salted and hashed; each accepted once, however it is typed; a wrong code spends nothing.
 */
import { describe, expect, test } from "vitest";
import {
  BACKUP_CODE_ALPHABET,
  generateBackupCodes,
  hashBackupCode,
  normalizeBackupCode,
  useBackupCode,
} from "../src/lib/features/two-factor/backup-codes.js";

const format = /^[23456789abcdefghjkmnpqrstuvwxyz]{5}-[23456789abcdefghjkmnpqrstuvwxyz]{5}$/;

async function enrolled(count = 10) {
  const codes = generateBackupCodes(count);
  const hashes = await Promise.all(codes.map(hashBackupCode));
  return { codes, hashes };
}

describe("generating", () => {
  test("ten distinct codes by default, each xxxxx-xxxxx", () => {
    const codes = generateBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(format);
  });

  test("the count asked for, within 1 to 100", () => {
    expect(generateBackupCodes(1)).toHaveLength(1);
    expect(generateBackupCodes(100)).toHaveLength(100);
    for (const bad of [0, -1, 101, 1.5, Number.NaN]) {
      expect(() => generateBackupCodes(bad), String(bad)).toThrow(RangeError);
    }
  });

  test("every letter of the alphabet occurs, and no look-alike ever does", () => {
    const seen = new Set(generateBackupCodes(100).concat(generateBackupCodes(100)).join(""));
    seen.delete("-");
    expect([...seen].sort().join("")).toBe(BACKUP_CODE_ALPHABET);
    for (const lookalike of "01ilo") expect(BACKUP_CODE_ALPHABET).not.toContain(lookalike);
  });

  test("two sets share no code", () => {
    const a = new Set(generateBackupCodes());
    expect(generateBackupCodes().some((code) => a.has(code))).toBe(false);
  });
});

describe("hashing", () => {
  test("the stored value is a salt and a SHA-256, and never holds the code", async () => {
    const [code] = generateBackupCodes(1) as [string];
    const stored = await hashBackupCode(code);
    expect(stored).toMatch(/^[0-9a-f]{16}\.[0-9a-f]{64}$/);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(code.replace("-", ""));
  });

  test("hashing one code twice gives two values, both of which accept it", async () => {
    const [code] = generateBackupCodes(1) as [string];
    const a = await hashBackupCode(code);
    const b = await hashBackupCode(code);
    expect(a).not.toBe(b);
    expect(await useBackupCode([a], code)).toEqual({ remaining: [] });
    expect(await useBackupCode([b], code)).toEqual({ remaining: [] });
  });

  test("text that is no backup code is refused", async () => {
    for (const bad of ["", "abcde-fghj", "abcde-fghjkm", "abcd0-fghjk", "abcdo-fghjk"]) {
      await expect(hashBackupCode(bad), bad).rejects.toThrow(TypeError);
    }
  });
});

describe("normalising", () => {
  test("case, dashes and spaces do not matter", () => {
    expect(normalizeBackupCode("K7M2P-X9AD4")).toBe("k7m2px9ad4");
    expect(normalizeBackupCode(" k7m2p x9ad4\n")).toBe("k7m2px9ad4");
    expect(normalizeBackupCode("k7m2px9ad4")).toBe("k7m2px9ad4");
    expect(normalizeBackupCode("k7m-2px--9ad4")).toBe("k7m2px9ad4");
  });

  test("anything else is not a code", () => {
    const bad: unknown[] = [
      "k7m2p-x9ad",
      "k7m2p-x9ad44",
      "k7m2p_x9ad4",
      "k7m2p-x9a04",
      "ķ7m2p-x9ad4",
    ];
    for (const input of [...bad, "", undefined, null, 12345, {}, "k".repeat(100)]) {
      expect(normalizeBackupCode(input), String(input)).toBeNull();
    }
  });
});

describe("using", () => {
  test("a code is accepted once: the remaining list lacks exactly its hash", async () => {
    const { codes, hashes } = await enrolled();
    const used = await useBackupCode(hashes, codes[3]);
    expect(used).not.toBeNull();
    expect(used!.remaining).toHaveLength(9);
    expect(used!.remaining).toEqual(hashes.filter((_, i) => i !== 3));
    expect(await useBackupCode(used!.remaining, codes[3])).toBeNull();
    // The others still work against the remaining list.
    const next = await useBackupCode(used!.remaining, codes[9]);
    expect(next!.remaining).toEqual(hashes.filter((_, i) => i !== 3 && i !== 9));
  });

  test("every code of a set can be spent, in any order, until none is left", async () => {
    const { codes, hashes } = await enrolled(5);
    let left: string[] = hashes;
    for (const code of [codes[2], codes[0], codes[4], codes[1], codes[3]]) {
      const used = await useBackupCode(left, code);
      expect(used!.remaining).toHaveLength(left.length - 1);
      left = used!.remaining;
    }
    expect(left).toEqual([]);
    expect(await useBackupCode(left, codes[0])).toBeNull();
  });

  test("the code is accepted however it is typed", async () => {
    const { codes, hashes } = await enrolled();
    const code = codes[0]!;
    for (const typed of [
      code.toUpperCase(),
      code.replace("-", ""),
      ` ${code.replace("-", " ")} `,
    ]) {
      expect((await useBackupCode(hashes, typed))!.remaining, typed).toHaveLength(9);
    }
  });

  test("a wrong code is refused and leaves the list as it was", async () => {
    const { codes, hashes } = await enrolled();
    const before = [...hashes];
    const [wrong] = generateBackupCodes(1) as [string];
    if (!codes.includes(wrong)) expect(await useBackupCode(hashes, wrong)).toBeNull();
    expect(await useBackupCode(hashes, "not a code")).toBeNull();
    expect(await useBackupCode(hashes, undefined)).toBeNull();
    expect(await useBackupCode(hashes, hashes[0])).toBeNull();
    expect(hashes).toEqual(before);
  });

  test("a code from another user's set is refused", async () => {
    const alice = await enrolled();
    const bob = await enrolled();
    expect(await useBackupCode(alice.hashes, bob.codes[0])).toBeNull();
  });

  test("malformed stored entries match nothing and do not throw", async () => {
    const { codes, hashes } = await enrolled(2);
    const list = ["", "no-dot", ".", `${hashes[0]!.split(".")[1]}`, hashes[1]!];
    expect(await useBackupCode(list, codes[0])).toBeNull();
    expect((await useBackupCode(list, codes[1]))!.remaining).toEqual(list.slice(0, 4));
  });
});
