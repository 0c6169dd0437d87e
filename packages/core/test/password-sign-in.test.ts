/**
 * Signing in with a password provider: the same answer for an unknown address, a wrong password
 * and (when the app does not reveal it) an unproven address; the credentials rate limits before
 * any check; a hash made with older parameters, or by another library, is replaced at the next
 * successful sign-in.
 */
import { randomUUID } from "node:crypto";
import { hashPassword } from "@gatehousejs/core/password";
import bcrypt from "bcryptjs";
import { describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, send, setCookies } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, signInErrorUrl } from "./password-world.js";

const WRONG = signInErrorUrl("CredentialsSignin", "credentials");

/** A verified user holding `hash` under the password provider. */
async function seeded(w: ReturnType<typeof passwordWorld>, email: string, hash: string) {
  const user = await w.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
  await w.adapter.linkAccount({
    userId: user.id,
    type: "password",
    provider: "password",
    providerAccountId: user.id,
    passwordHash: hash,
  });
  return user;
}

/** What a client can compare: status, location, and the names and lengths of the cookies set. */
function observed(response: Response) {
  return {
    status: response.status,
    location: response.headers.get("location"),
    cookies: [...setCookies(response)].map(([name, { value }]) => [name, value.length]),
  };
}

describe("a verified account", () => {
  test("signs in with its password, and not with another", async () => {
    const w = passwordWorld();
    await seeded(w, "a@example.com", await hashPassword(PASSWORD, { N: 1024 }));
    const jar = new Jar();
    const response = await w.signIn(jar, "A@Example.com");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(jar)).toBe("a@example.com");
    const wrong = await w.signIn(new Jar(), "a@example.com", OTHER_PASSWORD);
    expect(wrong.headers.get("location")).toBe(WRONG);
  });

  test("an unknown address, a wrong password and an account without a password answer alike", async () => {
    const w = passwordWorld();
    await seeded(w, "known@example.com", await hashPassword(PASSWORD, { N: 1024 }));
    await w.adapter.createUser({
      id: randomUUID(),
      email: "nopw@example.com",
      emailVerified: new Date(),
    });
    const answers = [];
    for (const email of ["known@example.com", "unknown@example.com", "nopw@example.com", "bad"]) {
      const jar = new Jar();
      await send(w.config, jar, "/auth/csrf");
      answers.push(observed(await w.signIn(jar, email, OTHER_PASSWORD)));
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.location).toBe(WRONG);
  });

  test("an unknown address is checked against no hash with the same two adapter reads", async () => {
    const w = passwordWorld();
    await seeded(w, "known@example.com", await hashPassword(PASSWORD, { N: 1024 }));
    const getAccount = vi.spyOn(w.adapter, "getAccount");
    const getUserByEmail = vi.spyOn(w.adapter, "getUserByEmail");
    await w.signIn(new Jar(), "known@example.com", OTHER_PASSWORD);
    const known = [getUserByEmail.mock.calls.length, getAccount.mock.calls.length];
    getAccount.mockClear();
    getUserByEmail.mockClear();
    await w.signIn(new Jar(), "unknown@example.com", OTHER_PASSWORD);
    expect([getUserByEmail.mock.calls.length, getAccount.mock.calls.length]).toEqual(known);
  });

  test("a GET of the callback is refused", async () => {
    const w = passwordWorld();
    const response = await send(w.config, new Jar(), "/auth/callback/password");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("an account whose address is not proven yet", () => {
  test("with the right password: EmailNotVerified, and only then (the default)", async () => {
    const w = passwordWorld();
    await w.signUp(new Jar(), "new@example.com");
    const right = await w.signIn(new Jar(), "new@example.com");
    expect(right.headers.get("location")).toBe(signInErrorUrl("EmailNotVerified"));
    const wrong = await w.signIn(new Jar(), "new@example.com", OTHER_PASSWORD);
    expect(wrong.headers.get("location")).toBe(WRONG);
    const page = await send(w.config, new Jar(), "/auth/signin?error=EmailNotVerified");
    expect(await page.text()).toContain("Confirm your email address first");
  });

  test("with revealUnverified: false, the right password answers as a wrong one", async () => {
    const w = passwordWorld({ password: { revealUnverified: false } });
    await w.signUp(new Jar(), "new@example.com");
    const jar = new Jar();
    await send(w.config, jar, "/auth/csrf");
    const right = observed(await w.signIn(jar, "new@example.com"));
    const other = new Jar();
    await send(w.config, other, "/auth/csrf");
    const unknown = observed(await w.signIn(other, "nobody@example.com"));
    expect(right).toEqual(unknown);
    expect(right.location).toBe(WRONG);
  });

  test("with requireEmailVerification: false, it signs in before the link is used", async () => {
    const w = passwordWorld({ password: { requireEmailVerification: false } });
    await w.signUp(new Jar(), "new@example.com");
    const jar = new Jar();
    await w.signIn(jar, "new@example.com");
    expect(await w.signedInAs(jar)).toBe("new@example.com");
  });
});

describe("rate limits", () => {
  test("failures back off the account, and a backed-off attempt is refused before any check", async () => {
    const w = passwordWorld({ config: { clientAddress: () => "203.0.113.7" } });
    await seeded(w, "a@example.com", await hashPassword(PASSWORD, { N: 1024 }));
    let failures = 0;
    while (failures < 20) {
      const response = await w.signIn(new Jar(), "a@example.com", OTHER_PASSWORD);
      if (response.headers.get("location") !== WRONG) break;
      failures++;
    }
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThan(20);
    const getAccount = vi.spyOn(w.adapter, "getAccount");
    const blocked = await w.signIn(new Jar(), "a@example.com", PASSWORD);
    expect(blocked.headers.get("location")).toContain("error=RateLimited");
    expect(getAccount).not.toHaveBeenCalled();
  });
});

describe("hashes made with older parameters", () => {
  test("are replaced with the current ones at the next successful sign-in", async () => {
    const w = passwordWorld({ password: { hash: {} } });
    await seeded(w, "a@example.com", await hashPassword(PASSWORD, { N: 2 ** 14 }));
    const jar = new Jar();
    await w.signIn(jar, "a@example.com");
    expect(await w.signedInAs(jar)).toBe("a@example.com");
    const stored = (await w.account("a@example.com"))!.passwordHash as string;
    expect(stored).toMatch(/^scrypt\$N=32768,r=8,p=1\$/);
    const again = new Jar();
    await w.signIn(again, "a@example.com");
    expect(await w.signedInAs(again)).toBe("a@example.com");
    expect((await w.account("a@example.com"))!.passwordHash).toBe(stored);
  });

  test("a bcrypt hash brought over signs in and is replaced by Gatehouse's", async () => {
    const w = passwordWorld();
    await seeded(w, "a@example.com", bcrypt.hashSync(PASSWORD, 4));
    const jar = new Jar();
    await w.signIn(jar, "a@example.com");
    expect(await w.signedInAs(jar)).toBe("a@example.com");
    expect((await w.account("a@example.com"))!.passwordHash).toMatch(/^scrypt\$N=1024,r=8,p=1\$/);
  });

  test("a failed upgrade is logged and the sign-in goes on", async () => {
    const w = passwordWorld({ password: { hash: {} } });
    await seeded(w, "a@example.com", await hashPassword(PASSWORD, { N: 2 ** 14 }));
    vi.spyOn(w.adapter, "updateAccount").mockRejectedValueOnce(new Error("database down"));
    const jar = new Jar();
    await w.signIn(jar, "a@example.com");
    expect(await w.signedInAs(jar)).toBe("a@example.com");
    expect(w.logger.error).toHaveBeenCalledTimes(1);
  });
});
