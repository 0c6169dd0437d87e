/**
 * Users brought over with the hashes another system made sign in through the password provider,
 * and their first sign-in replaces the hash with Gatehouse's own (docs/passwords.md, "Bring users
 * over"): bcrypt from bcryptjs, Argon2id from argon2, and Better Auth's own `hashPassword`.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import argon2 from "argon2";
import bcrypt from "bcryptjs";
import { beforeAll, describe, expect, test } from "vitest";
import { Jar, ORIGIN } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";

let betterAuthHash: (password: string) => Promise<string>;

beforeAll(async () => {
  const fromBench = createRequire(join(import.meta.dirname, "../../../bench/package.json"));
  const crypto = (await import(pathToFileURL(fromBench.resolve("better-auth/crypto")).href)) as {
    hashPassword(password: string): Promise<string>;
  };
  betterAuthHash = crypto.hashPassword;
});

/** A proven user whose password account holds `hash` as another system stored it. */
async function importedUser(w: ReturnType<typeof passwordWorld>, email: string, hash: string) {
  const user = await w.adapter.createUser({
    id: crypto.randomUUID(),
    email,
    emailVerified: new Date(),
  });
  await w.adapter.linkAccount({
    userId: user.id,
    type: "password",
    provider: w.provider.id,
    providerAccountId: user.id,
    passwordHash: hash,
  });
}

const forms: [string, () => Promise<string>][] = [
  ["bcrypt ($2b$, bcryptjs)", async () => bcrypt.hash(PASSWORD, 4)],
  ["Argon2id (argon2)", async () => argon2.hash(PASSWORD, { memoryCost: 2 ** 12, timeCost: 2 })],
  ["Better Auth's scrypt form", async () => betterAuthHash(PASSWORD)],
];

describe.each(forms)("a user imported with a %s hash", (_, make) => {
  test("signs in with the password, and the stored hash becomes Gatehouse's", async () => {
    const w = passwordWorld();
    const imported = await make();
    await importedUser(w, "imported@example.com", imported);

    const wrong = await w.signIn(new Jar(), "imported@example.com", `${PASSWORD}!`);
    expect(wrong.headers.get("location")).not.toBe(ORIGIN);
    expect((await w.account("imported@example.com"))!.passwordHash).toBe(imported);

    const jar = new Jar();
    const response = await w.signIn(jar, "imported@example.com");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(jar)).toBe("imported@example.com");
    const upgraded = (await w.account("imported@example.com"))!.passwordHash as string;
    expect(upgraded).not.toBe(imported);
    expect(upgraded.startsWith("scrypt$")).toBe(true);

    // The upgraded hash keeps working; the old one is gone from the store.
    const again = new Jar();
    expect((await w.signIn(again, "imported@example.com")).headers.get("location")).toBe(ORIGIN);
  });
});
