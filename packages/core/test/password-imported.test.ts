/**
 * Hashes brought over from other systems (`verifyPassword` and `needsRehash` of
 * `@gatehousejs/core/password`): every hash here is made at test time by the library that writes
 * it in those systems — bcryptjs, argon2, and Better Auth's own `hashPassword` (bench's
 * devDependency, loaded by file URL: library code never imports it) — and the crafted ones start
 * from such a hash. Which libraries a check loads is watched through vitest's module mocks (the
 * real module behind a recorder), and once more in a plain Node process running the built package.
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { hashPassword, needsRehash, verifyPassword } from "@gatehousejs/core/password";
import argon2 from "argon2";
import bcrypt from "bcryptjs";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";

const core = join(dirname(fileURLToPath(import.meta.url)), "..");
const IMPORTED_MODULE = "../src/lib/crypto/password-imported.ts";

/** Cheap Argon2 parameters for tests that are not about them (m in KiB). */
const ARGON2_FAST = { memoryCost: 4096, timeCost: 2, parallelism: 1 };

afterEach(() => {
  vi.restoreAllMocks();
});

/** A bcrypt hash with the given prefix (`2a`, `2b`), as bcryptjs writes it. */
function bcryptHash(password: string, cost = 4, minor: "a" | "b" = "b"): string {
  const salt = bcrypt.genSaltSync(cost).replace(/^\$2b\$/, `$2${minor}$`);
  return bcrypt.hashSync(password, salt);
}

/** The scrypt parameters each node:crypto scrypt call ran with. */
function watchScrypt() {
  const spy = vi.spyOn(crypto, "scrypt");
  return () => spy.mock.calls.map((call) => call[3] as crypto.ScryptOptions);
}

interface BetterAuthPassword {
  hashPassword(password: string): Promise<string>;
}

/** Better Auth's `better-auth/crypto` (Node: node:crypto) and its pure-JS twin (@noble/hashes). */
let betterAuth: BetterAuthPassword & {
  verifyPassword(input: { hash: string; password: string }): Promise<boolean>;
};
let betterAuthPureJs: BetterAuthPassword;

beforeAll(async () => {
  const fromBench = createRequire(join(core, "../../bench/package.json"));
  const betterAuthCrypto = fromBench.resolve("better-auth/crypto");
  betterAuth = await import(pathToFileURL(betterAuthCrypto).href);
  const fromBetterAuth = createRequire(betterAuthCrypto);
  // The "node" condition picks password.node.*; its sibling password.mjs is the edge build.
  const utils = dirname(fromBetterAuth.resolve("@better-auth/utils/password"));
  betterAuthPureJs = await import(pathToFileURL(join(utils, "password.mjs")).href);
});

describe("bcrypt (bcryptjs)", () => {
  test("$2a$ and $2b$ hashes verify their password and refuse another", async () => {
    for (const minor of ["a", "b"] as const) {
      const hash = bcryptHash("correct horse", 4, minor);
      expect(hash.startsWith(`$2${minor}$04$`)).toBe(true);
      expect(await verifyPassword("correct horse", hash)).toBe(true);
      expect(await verifyPassword("correct horsE", hash)).toBe(false);
      expect(await verifyPassword("", hash)).toBe(false);
    }
  });

  test("a $2y$ hash (PHP's prefix for the same algorithm) verifies", async () => {
    const hash = bcryptHash("from php").replace(/^\$2b\$/, "$2y$");
    expect(await verifyPassword("from php", hash)).toBe(true);
    expect(await verifyPassword("from PHP", hash)).toBe(false);
  });

  test("an Auth.js example's hash (cost 10, bcrypt.hash) verifies", async () => {
    const hash = await bcrypt.hash("s3cret-from-authjs", 10);
    expect(await verifyPassword("s3cret-from-authjs", hash)).toBe(true);
    expect(await verifyPassword("s3cret-from-authj", hash)).toBe(false);
  });

  test("the password is checked as typed (the app that hashed it did not normalise it)", async () => {
    const hash = bcryptHash("caf\u00e9");
    expect(await verifyPassword("caf\u00e9", hash)).toBe(true);
    expect(await verifyPassword("cafe\u0301", hash)).toBe(false);
  });

  test("only the first 72 bytes count, as in bcrypt; the upgraded hash binds the whole password", async () => {
    // 70 ASCII bytes, then "é" (2 bytes) fills byte 72: what follows is ignored by bcrypt.
    const password = `${"a".repeat(70)}\u00e9 and the rest`;
    const hash = bcryptHash(password);
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${"a".repeat(70)}\u00e9 something else`, hash)).toBe(true);
    expect(await verifyPassword(`${"a".repeat(70)}e and the rest`, hash)).toBe(false);
    const upgraded = await hashPassword(password, { N: 2 ** 10, r: 8, p: 1 });
    expect(await verifyPassword(`${"a".repeat(70)}\u00e9 something else`, upgraded)).toBe(false);
  });
});

describe("Argon2 (argon2)", () => {
  test("an argon2id hash verifies its password and refuses another", async () => {
    const hash = await argon2.hash("correct horse", { ...ARGON2_FAST, type: argon2.argon2id });
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=4096,p=1,t=2\$/);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsE", hash)).toBe(false);
  });

  test("argon2's default parameters (m=64 MiB, t=3, p=4) verify", async () => {
    const hash = await argon2.hash("defaults");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(await verifyPassword("defaults", hash)).toBe(true);
  });

  test("an argon2i hash (PHP 7.2, older Django) verifies; argon2d is refused", async () => {
    const argon2i = await argon2.hash("older", { ...ARGON2_FAST, type: argon2.argon2i });
    expect(argon2i.startsWith("$argon2i$")).toBe(true);
    expect(await verifyPassword("older", argon2i)).toBe(true);
    expect(await verifyPassword("Older", argon2i)).toBe(false);
    const argon2d = await argon2.hash("older", { ...ARGON2_FAST, type: argon2.argon2d });
    expect(await argon2.verify(argon2d, "older")).toBe(true);
    expect(await verifyPassword("older", argon2d)).toBe(false);
    expect(needsRehash(argon2d)).toBe(true);
  });

  test("the password is checked as typed", async () => {
    const hash = await argon2.hash("caf\u00e9", ARGON2_FAST);
    expect(await verifyPassword("caf\u00e9", hash)).toBe(true);
    expect(await verifyPassword("cafe\u0301", hash)).toBe(false);
  });

  test("the most memory allowed (m=256 MiB) still verifies", async () => {
    const hash = await argon2.hash("big", { memoryCost: 2 ** 18, timeCost: 1, parallelism: 1 });
    expect(await verifyPassword("big", hash)).toBe(true);
  });
});

describe("Better Auth's scrypt (salt:hash)", () => {
  test("a hash from Better Auth's hashPassword verifies its password and refuses another", async () => {
    const hash = await betterAuth.hashPassword("correct horse");
    expect(hash).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsE", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  test("its pure-JS build (@noble/hashes, for edge runtimes) writes hashes that verify too", async () => {
    const hash = await betterAuthPureJs.hashPassword("from the edge");
    expect(await verifyPassword("from the edge", hash)).toBe(true);
    expect(await verifyPassword("from the Edge", hash)).toBe(false);
  });

  test("scrypt runs once with Better Auth's parameters: N=16384, r=16, p=1", async () => {
    const hash = await betterAuth.hashPassword("params");
    const calls = watchScrypt();
    expect(await verifyPassword("params", hash)).toBe(true);
    expect(calls()).toMatchObject([{ N: 16384, r: 16, p: 1 }]);
  });

  test("the same characters in another Unicode form match (NFKC), as they do in Better Auth", async () => {
    const typed = "caf\u00e9 \ufb01 \uff50\uff41\uff53\uff53";
    const hash = await betterAuth.hashPassword(typed);
    for (const [other, matches] of [
      ["cafe\u0301 fi pass", true],
      ["cafe fi pass", false],
    ] as const) {
      expect(await betterAuth.verifyPassword({ hash, password: other })).toBe(matches);
      expect(await verifyPassword(other, hash), other).toBe(matches);
    }
  });

  const [salt, key] = ["0123456789abcdef0123456789abcdef", "ab".repeat(64)];
  const malformed: [string, string][] = [
    ["upper-case hex", `${salt.toUpperCase()}:${key.toUpperCase()}`],
    ["a 15-byte salt", `${salt.slice(2)}:${key}`],
    ["a 63-byte key", `${salt}:${key.slice(2)}`],
    ["no salt", `:${key}`],
    ["a third part", `${salt}:${key}:${salt}`],
    ["spaces", ` ${salt}:${key}`],
    ["a non-hex digit", `${salt.slice(1)}g:${key}`],
  ];

  test.each(malformed)("a value with %s gives false without running scrypt", async (_, stored) => {
    const calls = watchScrypt();
    expect(await verifyPassword("pw", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(true);
    expect(calls()).toEqual([]);
  });
});

describe("needsRehash and the upgrade", () => {
  test("every imported form needs a rehash, and the upgraded hash verifies and does not", async () => {
    const imported = [
      bcryptHash("move me", 4, "a"),
      bcryptHash("move me"),
      bcryptHash("move me").replace(/^\$2b\$/, "$2y$"),
      await argon2.hash("move me", ARGON2_FAST),
      await argon2.hash("move me", { ...ARGON2_FAST, type: argon2.argon2i }),
      await betterAuth.hashPassword("move me"),
    ];
    for (const stored of imported) {
      expect(await verifyPassword("move me", stored), stored.slice(0, 10)).toBe(true);
      expect(needsRehash(stored), stored.slice(0, 10)).toBe(true);
      expect(needsRehash(stored, { N: 2 ** 10, r: 8, p: 1 })).toBe(true);
    }
    const upgraded = await hashPassword("move me");
    expect(needsRehash(upgraded)).toBe(false);
    expect(await verifyPassword("move me", upgraded)).toBe(true);
  });
});

/**
 * The password module, imported afresh behind recorders: `loaded` lists what was imported
 * (`bcryptjs`, `argon2`, `password-imported`), `calls` what the libraries were asked; `missing`
 * makes a package fail to import, as an uninstalled one does.
 */
async function freshPasswordModule(missing: string[] = []) {
  vi.resetModules();
  const loaded: string[] = [];
  const calls: string[] = [];
  const recorded =
    (name: string, method: string) => async (importOriginal: () => Promise<unknown>) => {
      loaded.push(name);
      if (missing.includes(name)) throw new Error(`Cannot find package '${name}'`);
      const real = (await importOriginal()) as Record<string, unknown>;
      const library = (real.default ?? real) as Record<string, (...args: unknown[]) => unknown>;
      const wrapped = (...args: unknown[]) => {
        calls.push(name);
        return library[method]?.(...args);
      };
      return { [method]: wrapped, default: { [method]: wrapped } };
    };
  vi.doMock("bcryptjs", recorded("bcryptjs", "compare"));
  vi.doMock("argon2", recorded("argon2", "verify"));
  vi.doMock(IMPORTED_MODULE, async (importOriginal) => {
    loaded.push("password-imported");
    return importOriginal();
  });
  const module = await import("@gatehousejs/core/password");
  return { ...module, loaded, calls };
}

describe("loading and bounds", () => {
  afterEach(() => {
    vi.doUnmock("bcryptjs");
    vi.doUnmock("argon2");
    vi.doUnmock(IMPORTED_MODULE);
    vi.resetModules();
  });

  test("checking a Gatehouse hash, or none, loads neither library nor the imported forms", async () => {
    const { verifyPassword, hashPassword, loaded } = await freshPasswordModule();
    const hash = await hashPassword("pw", { N: 2 ** 10, r: 8, p: 1 });
    expect(await verifyPassword("pw", hash)).toBe(true);
    expect(await verifyPassword("wrong", hash)).toBe(false);
    expect(await verifyPassword("pw", null)).toBe(false);
    expect(await verifyPassword("pw", "scrypt$not-a-hash")).toBe(false);
    expect(loaded).toEqual([]);
  });

  test("each form loads its own library and no other", async () => {
    const fresh = await freshPasswordModule();
    expect(await fresh.verifyPassword("pw", await betterAuth.hashPassword("pw"))).toBe(true);
    expect(fresh.loaded).toEqual(["password-imported"]);
    expect(await fresh.verifyPassword("pw", bcryptHash("pw"))).toBe(true);
    expect(fresh.loaded).toEqual(["password-imported", "bcryptjs"]);
    expect(await fresh.verifyPassword("pw", await argon2.hash("pw", ARGON2_FAST))).toBe(true);
    expect(fresh.loaded).toEqual(["password-imported", "bcryptjs", "argon2"]);
    expect(fresh.calls).toEqual(["bcryptjs", "argon2"]);
  });

  // A real hash (salt "saltsaltsaltsalt", see the test after the table) with its parameter field
  // replaced. node-argon2 writes m, p, t; libargon2 and PHP m, t, p.
  const argon2Key = "i/Qgr8h/F5RyM02Yq7pcM7HTnyWAx32zgQeJAhHnDtE";
  const argon2With = (parameters: string, id = "argon2id", version = "v=19$") =>
    `$${id}$${version}${parameters}$c2FsdHNhbHRzYWx0c2FsdA$${argon2Key}`;
  const bcryptWith = (prefix: string) => bcryptHash("pw").replace(/^\$2b\$04\$/, prefix);
  const outOfBounds: [string, string][] = [
    ["bcrypt cost 31", bcryptWith("$2b$31$")],
    ["bcrypt cost 15", bcryptWith("$2b$15$")],
    ["bcrypt cost 3", bcryptWith("$2b$03$")],
    ["$2x$ (crypt_blowfish's bug-compatible mode)", bcryptWith("$2x$04$")],
    ["$2$ (the first bcrypt)", bcryptWith("$2$04$")],
    ["a bcrypt hash one character short", bcryptHash("pw").slice(0, -1)],
    ["Argon2 m=2^30 (1 TiB)", argon2With("m=1073741824,t=2,p=1")],
    ["Argon2 m just over 256 MiB", argon2With("m=262145,t=1,p=1")],
    ["Argon2 t=11", argon2With("m=4096,t=11,p=1")],
    ["Argon2 p=17", argon2With("m=4096,t=2,p=17")],
    ["Argon2 m=256 MiB, t=5 (m·t over 1 GiB)", argon2With("m=262144,t=5,p=1")],
    ["Argon2 m below 8·p", argon2With("m=64,t=2,p=16")],
    ["Argon2 m=0", argon2With("m=0,t=2,p=1")],
    ["Argon2 a leading zero", argon2With("m=04096,t=2,p=1")],
    ["Argon2 a repeated parameter", argon2With("m=4096,m=4096,t=2,p=1")],
    ["Argon2 a missing parameter", argon2With("m=4096,t=2")],
    ["Argon2 associated data", argon2With("m=4096,t=2,p=1,data=YWJj")],
    ["Argon2 v=16", argon2With("m=4096,t=2,p=1", "argon2id", "v=16$")],
    ["Argon2 without a version", argon2With("m=4096,t=2,p=1", "argon2id", "")],
    ["argon2d", argon2With("m=4096,t=2,p=1", "argon2d")],
    ["an Argon2 salt of 6 bytes", `$argon2id$v=19$m=4096,t=2,p=1$c2FsdHNh$${argon2Key}`],
    [
      "an Argon2 hash of 12 bytes",
      argon2With("m=4096,t=2,p=1").replace(argon2Key, "i/Qgr8h/F5RyM02Y"),
    ],
    ["an Argon2 hash with padding", `${argon2With("m=4096,t=2,p=1")}=`],
    ["a non-canonical Argon2 hash", `${argon2With("m=4096,t=2,p=1").slice(0, -1)}F`],
  ];

  test.each(outOfBounds)(
    "%s: false without loading or asking a library, and a rehash",
    async (_, stored) => {
      const { verifyPassword, loaded, calls } = await freshPasswordModule(["bcryptjs", "argon2"]);
      expect(await verifyPassword("pw", stored)).toBe(false);
      expect(needsRehash(stored)).toBe(true);
      expect(loaded.filter((name) => name !== "password-imported")).toEqual([]);
      expect(calls).toEqual([]);
    },
  );

  test("the crafted Argon2 hash above is real: in-bounds parameters in any order verify", async () => {
    const salt = Buffer.from("saltsaltsaltsalt");
    const made = await argon2.hash("pw", { ...ARGON2_FAST, salt });
    expect(made).toBe(argon2With("m=4096,p=1,t=2"));
    for (const parameters of ["m=4096,p=1,t=2", "m=4096,t=2,p=1", "t=2,p=1,m=4096"]) {
      expect(await verifyPassword("pw", argon2With(parameters)), parameters).toBe(true);
      expect(await verifyPassword("pW", argon2With(parameters)), parameters).toBe(false);
    }
  });

  test.each([
    ["bcryptjs", () => bcryptHash("pw")],
    ["argon2", () => argon2.hash("pw", ARGON2_FAST)],
  ] as const)(
    "without %s a hash that needs it is an Error naming the package, every time, never false",
    async (name, make) => {
      const stored = await make();
      const { verifyPassword } = await freshPasswordModule([name]);
      for (const attempt of [1, 2]) {
        const error = await verifyPassword("pw", stored).then(
          (answer) => answer,
          (e: unknown) => e,
        );
        expect(error, `attempt ${attempt}`).toBeInstanceOf(Error);
        const { message, cause } = error as Error;
        expect(message).toContain(`"${name}"`);
        expect(message).toContain(`npm install ${name}`);
        expect(message).not.toContain(stored);
        expect(message).not.toContain(stored.slice(-20));
        expect(cause).toBeInstanceOf(Error);
      }
    },
  );

  test("a missing library does not stop the other forms", async () => {
    const { verifyPassword } = await freshPasswordModule(["bcryptjs", "argon2"]);
    expect(await verifyPassword("pw", await betterAuth.hashPassword("pw"))).toBe(true);
    expect(await verifyPassword("pw", await hashPassword("pw", { N: 2 ** 10, r: 8, p: 1 }))).toBe(
      true,
    );
  });
});

const built = existsSync(join(core, "dist", "password.js"));

describe.skipIf(!built)("the built package in plain Node", () => {
  const run = promisify(execFile);
  /** Lists each loaded URL on stderr; `hidden` packages fail to resolve, as uninstalled ones do. */
  const hooks = (hidden: string[]) =>
    `data:text/javascript,${encodeURIComponent(
      'import { register } from "node:module";' +
        `register(${JSON.stringify(
          `data:text/javascript,${encodeURIComponent(
            'import { writeSync } from "node:fs";' +
              `const hidden = ${JSON.stringify(hidden)};` +
              "export async function resolve(specifier, context, next) {" +
              "  if (hidden.includes(specifier)) {" +
              '    throw Object.assign(new Error("Cannot find package " + specifier), { code: "ERR_MODULE_NOT_FOUND" });' +
              "  }" +
              "  return next(specifier, context); }" +
              "export async function load(url, context, next) {" +
              ' writeSync(2, "loaded " + url + "\\n"); return next(url, context); }',
          )}`,
        )});`,
    )}`;

  /** Runs `script` in a fresh process; the URLs loaded before and after its `MARKER` line. */
  async function inNode(script: string, env: Record<string, string>, hidden: string[] = []) {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", hooks(hidden), "--input-type=module", "-e", script],
      { cwd: core, env: { ...process.env, ...env } },
    );
    const lines = stderr.split("\n");
    const marker = lines.indexOf("MARKER");
    expect(marker, stderr).toBeGreaterThanOrEqual(0);
    const urls = (part: string[]) => part.filter((l) => l.startsWith("loaded ")).join("\n");
    return { stdout, before: urls(lines.slice(0, marker)), after: urls(lines.slice(marker + 1)) };
  }

  const script = `
    import { hashPassword, verifyPassword } from "@gatehousejs/core/password";
    const own = await hashPassword("pw", { N: 1024, r: 8, p: 1 });
    if (!(await verifyPassword("pw", own)) || (await verifyPassword("pw", null))) throw new Error("scrypt");
    process.stderr.write("MARKER\\n");
    const answer = await verifyPassword("pw", process.env.IMPORTED_HASH).catch((e) => e.message);
    process.stdout.write(String(answer));
  `;

  test("a Gatehouse hash loads no library; a bcrypt hash loads bcryptjs from node_modules, not argon2", async () => {
    const { stdout, before, after } = await inNode(script, { IMPORTED_HASH: bcryptHash("pw") });
    expect(stdout).toBe("true");
    expect(before).not.toMatch(/bcryptjs|argon2|password-imported/);
    expect(after).toMatch(/\/node_modules\/bcryptjs\//);
    expect(after).not.toMatch(/argon2/);
  });

  test("an uninstalled bcryptjs is an error naming it", async () => {
    const stored = bcryptHash("pw");
    const { stdout } = await inNode(script, { IMPORTED_HASH: stored }, ["bcryptjs"]);
    expect(stdout).toContain('needs the optional package "bcryptjs"');
    expect(stdout).not.toContain(stored);
  });
});
