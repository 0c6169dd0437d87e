/**
 * The password policy (features/password/policy.ts, docs/passwords.md): NIST SP 800-63B-4's
 * lengths counted in code points after NFKC, no composition rules, the offline list of common
 * passwords (loaded on the first check that needs it), context words, the app's own words, and
 * how a breach check's answer, failure or silence reaches the result and the log. The range
 * protocol itself is tested against a local server in password-breach.test.ts.
 */
import { readFileSync } from "node:fs";
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from "@gatehousejs/core/password";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { BreachCheck } from "../src/lib/features/password/breach.js";
import {
  checkPassword,
  type PasswordCheckContext,
  type PasswordPolicyOptions,
  resolvePasswordPolicy,
} from "../src/lib/features/password/policy.js";

// Counts the imports of the offline list: the factory runs when a module first imports it.
const list = vi.hoisted(() => ({ loads: 0 }));
vi.mock("@zxcvbn-ts/language-common", async (original) => {
  list.loads++;
  return original();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const TOO_COMMON =
  "Choose a less common password: this one appears in lists of passwords attackers try first.";
/** Not in the offline list, no composition of any kind: 15 lowercase letters. */
const PLAIN = "quietmapleriver";
const FAST = { N: 2 ** 10, r: 8, p: 1 };

async function check(
  password: unknown,
  options?: PasswordPolicyOptions,
  context?: PasswordCheckContext,
) {
  return checkPassword(password, resolvePasswordPolicy(options), context);
}

function refusal(error: string) {
  return { ok: false, error, message: expect.any(String) };
}

describe("the offline list", () => {
  // First in the file: the list is cached for the process once a check has loaded it.
  test("loads with the first check that needs it, once, and never for a policy without it", async () => {
    expect(list.loads).toBe(0);
    const policy = resolvePasswordPolicy();
    expect(list.loads).toBe(0);
    await checkPassword("passwordpassword", resolvePasswordPolicy({ blocklist: false }));
    await checkPassword("short", policy);
    expect(list.loads).toBe(0);
    const [first, second] = await Promise.all([
      checkPassword("passwordpassword", policy),
      checkPassword(PLAIN, policy),
    ]);
    expect(first).toEqual(refusal("PasswordTooCommon"));
    expect(second.ok).toBe(true);
    await checkPassword("qwerty123456789", policy);
    expect(list.loads).toBe(1);
  });

  test("policy.ts imports it only dynamically", () => {
    const source = readFileSync(
      new URL("../src/lib/features/password/policy.ts", import.meta.url),
      "utf8",
    );
    expect(source).toContain('import("@zxcvbn-ts/language-common")');
    expect(source).not.toMatch(/^\s*(import|export)\s[^;]*?from\s+["']@zxcvbn-ts\//m);
  });

  test("the entries these tests rely on are in the list", async () => {
    const { dictionary } = await vi.importActual<typeof import("@zxcvbn-ts/language-common")>(
      "@zxcvbn-ts/language-common",
    );
    const words = new Set(dictionary["passwords-common"]);
    for (const word of ["passwordpassword", "qwerty123456789", "1qaz2wsx3edc4rfv", "iloveyou"]) {
      expect(words.has(word), word).toBe(true);
    }
    for (const word of [PLAIN, "password1234567", "ilovemaps"])
      expect(words.has(word), word).toBe(false);
  });

  test.each(["passwordpassword", "PasswordPassword", "QWERTY123456789", "1qaz2wsx3edc4rfv"])(
    "%s is refused as too common",
    async (password) => {
      expect(await check(password)).toEqual({
        ok: false,
        error: "PasswordTooCommon",
        message: TOO_COMMON,
      });
    },
  );

  test("a fullwidth spelling of a common password is the common password", async () => {
    expect(await check("ｐａｓｓｗｏｒｄｐａｓｓｗｏｒｄ")).toEqual(refusal("PasswordTooCommon"));
  });

  test("the short entries matter once minLength is lowered", async () => {
    expect(await check("Iloveyou", { minLength: 8 })).toEqual(refusal("PasswordTooCommon"));
    expect(await check("ilovemaps", { minLength: 8 })).toMatchObject({ ok: true });
  });

  test("only the whole password is compared: a common one with more after it is accepted", async () => {
    expect(await check("passwordpassword!")).toMatchObject({ ok: true });
  });

  test("blocklist: false turns the list off", async () => {
    expect(await check("passwordpassword", { blocklist: false })).toEqual({
      ok: true,
      password: "passwordpassword",
    });
  });
});

describe("the defaults", () => {
  test("15 to 128 characters, the offline list on, no extra words, no breach check", () => {
    expect(resolvePasswordPolicy()).toEqual({
      minLength: 15,
      maxLength: 128,
      blocklist: true,
      extraBlocklist: new Set(),
      breachCheck: undefined,
    });
    expect(Object.isFrozen(resolvePasswordPolicy())).toBe(true);
  });

  test("14 characters are too short, 15 are enough", async () => {
    const short = await check(PLAIN.slice(0, 14));
    expect(short).toEqual({
      ok: false,
      error: "PasswordTooShort",
      message:
        "Use at least 15 characters: a few unrelated words make a long password that is easy to remember.",
    });
    expect(await check(PLAIN)).toEqual({ ok: true, password: PLAIN });
  });

  test("128 characters are accepted, 129 are too long", async () => {
    const long = "correct horse battery staple ".repeat(5).slice(0, 128);
    expect(await check(long)).toEqual({ ok: true, password: long });
    expect(await check(`${long}x`)).toEqual({
      ok: false,
      error: "PasswordTooLong",
      message: "Use at most 128 characters.",
    });
  });

  test.each([
    ["only lowercase letters", "quietmapleriver"],
    ["only digits", "839201746592017"],
    ["only spaces and one word", "               word"],
    ["no letters at all", "!!!???...,,,;;;"],
    ["the same character", "zzzzzzzzzzzzzzzz"],
  ])("no composition rules: %s is accepted", async (_, password) => {
    expect(await check(password)).toMatchObject({ ok: true });
  });

  test("no message holds the password", async () => {
    const secret = "sesame-open-sesame";
    const results = [
      await check(secret, { minLength: 20 }),
      await check(secret, { minLength: 8, maxLength: 64 }, { username: secret }),
      await check(`${secret}${"x".repeat(200)}`),
    ];
    for (const result of results) {
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain("sesame");
    }
  });
});

describe("resolvePasswordPolicy refuses malformed options, naming them", () => {
  test.each<[string, unknown]>([
    ["minLength", 7],
    ["minLength", 0],
    ["minLength", 15.5],
    ["minLength", "15"],
    ["minLength", Number.NaN],
    ["maxLength", 63],
    ["maxLength", 1025],
    ["maxLength", Number.POSITIVE_INFINITY],
    ["blocklist", "no"],
    ["extraBlocklist", "gatehouse"],
    ["extraBlocklist", ["gatehouse", 1]],
    ["extraBlocklist", 42],
    ["breachCheck", "https://api.pwnedpasswords.com/range/"],
    ["minlength", 20],
  ])("%s: %s", (option, value) => {
    expect(() => resolvePasswordPolicy({ [option]: value } as PasswordPolicyOptions)).toThrow(
      new RegExp(`\`${option}\``),
    );
    expect(() => resolvePasswordPolicy({ [option]: value } as PasswordPolicyOptions)).toThrow(
      TypeError,
    );
  });

  test("a maximum under the minimum", () => {
    expect(() => resolvePasswordPolicy({ minLength: 70, maxLength: 64 })).toThrow(/`maxLength`/);
  });

  test("options that are not an object", () => {
    expect(() => resolvePasswordPolicy(null as never)).toThrow(TypeError);
    expect(() => resolvePasswordPolicy("strict" as never)).toThrow(TypeError);
  });

  test("the bounds themselves are accepted", () => {
    expect(resolvePasswordPolicy({ minLength: 8, maxLength: 64 })).toMatchObject({
      minLength: 8,
      maxLength: 64,
    });
    expect(resolvePasswordPolicy({ maxLength: MAX_PASSWORD_LENGTH }).maxLength).toBe(1024);
  });
});

describe("normalisation and counting", () => {
  test("a fullwidth password is its NFKC form, and that is what it answers", async () => {
    expect(await check("ｑｕｉｅｔｍａｐｌｅｒｉｖｅｒ")).toEqual({ ok: true, password: PLAIN });
  });

  test("the ﬁ ligature counts as the two letters it normalises to", async () => {
    const password = "ﬁelds of barley"; // 15 code points typed, 16 after NFKC
    expect(await check(password, { minLength: 16 })).toEqual({
      ok: true,
      password: "fields of barley",
    });
  });

  test("a decomposed letter counts once, as its composed form", async () => {
    const decomposed = "cafe\u0301 terrace nu"; // 16 code points typed, 15 after NFKC
    expect([...decomposed]).toHaveLength(16);
    expect(await check(decomposed, { minLength: 16 })).toEqual(refusal("PasswordTooShort"));
    expect(await check(decomposed)).toEqual({ ok: true, password: "café terrace nu" });
  });

  test("an emoji is one character, though it is two UTF-16 units", async () => {
    expect(await check("🔑".repeat(15))).toMatchObject({ ok: true });
    expect(await check("🔑".repeat(14))).toEqual(refusal("PasswordTooShort"));
    expect(await check("🔑".repeat(64), { maxLength: 64 })).toMatchObject({ ok: true });
    expect(await check("🔑".repeat(65), { maxLength: 64 })).toEqual(refusal("PasswordTooLong"));
  });

  test("the accepted password hashes as hashPassword would hash what was typed", async () => {
    const typed = "ｑｕｉｅｔ ﬁelds of café";
    const checked = await check(typed);
    if (!checked.ok) throw new Error(checked.error);
    const hash = await hashPassword(checked.password, FAST);
    expect(await verifyPassword(typed, hash, FAST)).toBe(true);
  });
});

describe("what cannot be hashed is refused", () => {
  test.each([
    ["a lone high surrogate", `${PLAIN}\ud800`],
    ["a lone low surrogate", `\udc00${PLAIN}`],
    ["a number", 839201746592017],
    ["an array", [PLAIN]],
  ])("%s", async (_, password) => {
    expect(await check(password)).toEqual({
      ok: false,
      error: "PasswordInvalid",
      message: "Type the password again: it holds a character that cannot be stored.",
    });
  });

  test("a missing password is too short", async () => {
    expect(await check(undefined)).toEqual(refusal("PasswordTooShort"));
    expect(await check(null)).toEqual(refusal("PasswordTooShort"));
    expect(await check("")).toEqual(refusal("PasswordTooShort"));
  });

  test("a surrogate pair is not a lone surrogate", async () => {
    expect(await check(`${PLAIN}\ud83d\udd11`)).toMatchObject({ ok: true });
  });

  test("more than 1,024 UTF-16 units are too long, counted before normalising", async () => {
    const policy = { maxLength: 1024 };
    expect(await check("ab".repeat(512), policy)).toMatchObject({ ok: true });
    expect(await check(`${"ab".repeat(512)}c`, policy)).toEqual(refusal("PasswordTooLong"));
    // 513 code points, well under maxLength, but 1,026 units.
    expect(await check("🔑".repeat(513), policy)).toEqual(refusal("PasswordTooLong"));

    // 1,028 units typed, 514 after NFKC: verifyPassword would refuse what was typed at sign-in.
    const bold = "𝐪𝐮𝐢𝐞𝐭".repeat(103).slice(0, 1028);
    expect(bold.normalize("NFKC")).toHaveLength(514);
    expect(await check(bold, policy)).toEqual(refusal("PasswordTooLong"));
    const stored = await hashPassword(bold.normalize("NFKC"), FAST);
    expect(await verifyPassword(bold, stored, FAST)).toBe(false);
  });

  test("a password NFKC lengthens past 1,024 units is too long: hashPassword would refuse it", async () => {
    const policy = { maxLength: 1024 };
    const fits = `${"🔑".repeat(500)}${"ﬁ".repeat(12)}`; // 1,012 units typed, 1,024 after NFKC
    const over = `${"🔑".repeat(500)}${"ﬁ".repeat(24)}`; // 1,024 typed, 1,048 after, 548 code points
    const checked = await check(fits, policy);
    if (!checked.ok) throw new Error(checked.error);
    await expect(hashPassword(checked.password, FAST)).resolves.toMatch(/^scrypt\$/);
    expect(await check(over, policy)).toEqual(refusal("PasswordTooLong"));
    await expect(hashPassword(over.normalize("NFKC"), FAST)).rejects.toThrow(TypeError);
  });
});

describe("context words", () => {
  const context = {
    email: "Margaret.Hamilton@example.com",
    name: "  Grace Brewster Hopper ",
    username: "the_lovelace_engine",
    appName: "Analytical Engine Co",
  };

  test.each([
    ["the address", "margaret.hamilton@example.com"],
    ["the address's local part", "MARGARET.HAMILTON"],
    ["the name, without its spaces around", "grace brewster hopper"],
    ["the username", "The_Lovelace_Engine"],
    ["the app's name", "analytical engine co"],
    ["the app's name, fullwidth", "ａｎａｌｙｔｉｃａｌ ｅｎｇｉｎｅ ｃｏ"],
  ])("%s is refused like a common password", async (_, password) => {
    expect(await check(password, {}, context)).toEqual({
      ok: false,
      error: "PasswordTooCommon",
      message: TOO_COMMON,
    });
  });

  test("only equal passwords: one that contains a context word is accepted", async () => {
    expect(await check("margaret.hamilton rocks", {}, context)).toMatchObject({ ok: true });
    expect(await check("margaret.hamilton1", {}, context)).toMatchObject({ ok: true });
  });

  test("missing and empty context values are ignored", async () => {
    const sparse = { email: null, name: "", username: null };
    expect(await check("margaret.hamilton@example.com", {}, sparse)).toMatchObject({ ok: true });
    expect(await check(PLAIN, {}, { email: "@quietmapleriver" })).toMatchObject({ ok: true });
  });

  test("they apply with the offline list turned off", async () => {
    expect(await check("the_lovelace_engine", { blocklist: false }, context)).toEqual(
      refusal("PasswordTooCommon"),
    );
  });
});

describe("extraBlocklist", () => {
  test("its words are refused, case-insensitively and after NFKC, from any iterable", async () => {
    function* words() {
      yield "Gatehouse Demo App";
    }
    for (const extra of [["Gatehouse Demo App"], new Set(["gatehouse demo app"]), words()]) {
      const policy = resolvePasswordPolicy({ extraBlocklist: extra });
      expect(await checkPassword("GATEHOUSE DEMO APP", policy)).toEqual(
        refusal("PasswordTooCommon"),
      );
      expect(await checkPassword("ｇａｔｅｈｏｕｓｅ ｄｅｍｏ ａｐｐ", policy)).toEqual(
        refusal("PasswordTooCommon"),
      );
      expect(await checkPassword(PLAIN, policy)).toMatchObject({ ok: true });
    }
  });

  test("it adds to the offline list and works without it; blank words are dropped", async () => {
    const policy = resolvePasswordPolicy({ extraBlocklist: ["our own secret", "  "] });
    expect(policy.extraBlocklist).toEqual(new Set(["our own secret"]));
    expect(await checkPassword("passwordpassword", policy)).toEqual(refusal("PasswordTooCommon"));
    const alone = resolvePasswordPolicy({ extraBlocklist: ["our own secret!"], blocklist: false });
    expect(await checkPassword("Our Own Secret!", alone)).toEqual(refusal("PasswordTooCommon"));
  });
});

describe("the breach check, as the policy uses it", () => {
  function recordingLogger() {
    const lines: { code: string; detail: string }[] = [];
    return {
      lines,
      logger: { warn: (code: string, detail?: Error) => lines.push({ code, detail: `${detail}` }) },
    };
  }

  test("a breached password gets the common password's error and message", async () => {
    const seen: string[] = [];
    const breachCheck: BreachCheck = async (password) => {
      seen.push(password);
      return true;
    };
    expect(await check("ｑｕｉｅｔｍａｐｌｅｒｉｖｅｒ", { breachCheck })).toEqual({
      ok: false,
      error: "PasswordTooCommon",
      message: TOO_COMMON,
    });
    expect(seen).toEqual([PLAIN]);
  });

  test("it is asked only about a password every other rule accepted", async () => {
    const breachCheck = vi.fn<BreachCheck>(async () => false);
    await check("too short", { breachCheck });
    await check("passwordpassword", { breachCheck });
    await check("x".repeat(200), { breachCheck });
    await check("the_lovelace_engine", { breachCheck }, { username: "the_lovelace_engine" });
    expect(breachCheck).not.toHaveBeenCalled();
    expect(await check(PLAIN, { breachCheck })).toEqual({ ok: true, password: PLAIN });
    expect(breachCheck).toHaveBeenCalledOnce();
  });

  test("a check that cannot answer writes one warning line, and its answer stands", async () => {
    const { lines, logger } = recordingLogger();
    const silent: BreachCheck = async (_, report) => {
      report?.unavailable(new Error("the range endpoint answered 503"));
      report?.unavailable(new Error("the range endpoint answered 503"));
      return false;
    };
    expect(await check(PLAIN, { breachCheck: silent }, { logger })).toMatchObject({ ok: true });
    expect(lines).toEqual([
      {
        code: "password-breach-check-unavailable",
        detail: "Error: the range endpoint answered 503",
      },
    ]);
    const refusing: BreachCheck = async (_, report) => {
      report?.unavailable(new Error("timed out"));
      return true;
    };
    expect(await check(PLAIN, { breachCheck: refusing }, { logger })).toEqual(
      refusal("PasswordTooCommon"),
    );
    expect(lines).toHaveLength(2);
  });

  test("a check that throws is logged by its error's name only, and the password accepted", async () => {
    const { lines, logger } = recordingLogger();
    const throwing: BreachCheck = async (password) => {
      throw new RangeError(`cannot check ${password}`);
    };
    expect(await check(PLAIN, { breachCheck: throwing }, { logger })).toEqual({
      ok: true,
      password: PLAIN,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.code).toBe("password-breach-check-unavailable");
    expect(lines[0]?.detail).toContain("RangeError");
    expect(lines[0]?.detail).not.toContain(PLAIN);
  });

  test("without a logger the warning goes to the console, once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const breachCheck: BreachCheck = async () => {
      throw new Error("down");
    };
    expect(await check(PLAIN, { breachCheck })).toMatchObject({ ok: true });
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]?.[0])).toMatch(
      /^\[gatehouse\]\[warn\]\[password-breach-check-unavailable\]/,
    );
    expect(String(warn.mock.calls[0]?.[0])).not.toContain(PLAIN);
  });
});
