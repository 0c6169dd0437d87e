/**
 * The verification link of a password sign-up (docs/passwords.md, docs/security.md): opened in
 * the browser that signed up it proves the address and signs in; opened anywhere else it never
 * vouches for the password chosen at sign-up, which may be a stranger's, and lets the address's
 * owner choose their own instead. Links are scanner-safe, single-use, and expire.
 */
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { Jar, ORIGIN, send, setCookies } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, signInErrorUrl } from "./password-world.js";

const OWNER = "owner@example.com";
const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`;

describe("in the browser that signed up", () => {
  test("the link's GET only shows a page; its POST proves the address and signs in", async () => {
    const w = passwordWorld();
    const jar = new Jar();
    await w.signUp(jar, OWNER);
    const link = w.lastLink(OWNER);

    const opened = await w.open(jar, link);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const page = await opened.text();
    expect(page).toContain("Confirm and sign in");
    expect(page).not.toContain('name="password"');
    // Opening (a mail scanner does) spends nothing and proves nothing.
    await w.open(new Jar(), link);
    expect(w.adapter.rows.count().verificationTokens).toBe(1);
    expect((await w.adapter.getUserByEmail(OWNER))!.emailVerified).toBeNull();

    const { response } = await w.follow(jar, link);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(jar)).toBe(OWNER);
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    expect(user.emailVerified).toBeInstanceOf(Date);
    // The password chosen at sign-up is the account's now.
    expect((await w.account(OWNER))!.passwordHash).toMatch(/^scrypt\$/);
    expect(w.adapter.rows.count().verificationTokens).toBe(0);
    expect(setCookies(response).get("gatehouse.password-signup")?.raw).toMatch(/Max-Age=0/);
    const types = (await w.securityLog.list(user.id, { limit: 10 })).map((e) => e.type);
    expect(types).toEqual(["signIn", "emailVerified", "signUp"]);

    // Signed out, the password signs in.
    const later = new Jar();
    await w.signIn(later, OWNER);
    expect(await w.signedInAs(later)).toBe(OWNER);
  });

  test("a link works once", async () => {
    const w = passwordWorld();
    const jar = new Jar();
    await w.signUp(jar, OWNER);
    const link = w.lastLink(OWNER);
    await w.follow(jar, link);
    // Used: the binding is gone, and the form it then shows spends nothing that is left.
    const { html, response } = await w.follow(jar, link, { password: OTHER_PASSWORD });
    expect(html).toContain("Choose your password");
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    const elsewhere = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
    expect(elsewhere.response.headers.get("location")).toBe(VERIFICATION_ERROR);
    // The password chosen at sign-up is still the one.
    const later = new Jar();
    await w.signIn(later, OWNER, PASSWORD);
    expect(await w.signedInAs(later)).toBe(OWNER);
  });

  test("a forged link tells nothing about the address: the same answer for every address", async () => {
    const w = passwordWorld();
    await w.signUp(new Jar(), OWNER);
    const forged = (email: string) =>
      new URL(`${ORIGIN}/auth/verify-email/password?token=${"0".repeat(64)}&email=${email}`);
    const answers = await Promise.all(
      [OWNER, "nobody@example.com"].map(async (email) => {
        const { response } = await w.follow(new Jar(), forged(email), { password: OTHER_PASSWORD });
        return [response.status, response.headers.get("location")];
      }),
    );
    expect(answers).toEqual([
      [302, VERIFICATION_ERROR],
      [302, VERIFICATION_ERROR],
    ]);
    expect((await w.adapter.getUserByEmail(OWNER))!.emailVerified).toBeNull();
  });

  test("an expired link proves nothing", async () => {
    const w = passwordWorld({ password: { maxAge: 1 } });
    const jar = new Jar();
    await w.signUp(jar, OWNER);
    const link = w.lastLink(OWNER);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { response } = await w.follow(jar, link);
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    expect((await w.adapter.getUserByEmail(OWNER))!.emailVerified).toBeNull();
  });

  test("20 concurrent uses of one link: one proof, one session", async () => {
    const w = passwordWorld();
    const jar = new Jar();
    await w.signUp(jar, OWNER);
    const link = w.lastLink(OWNER);
    const { formOf } = await import("./support/email-link.js");
    const { fields } = formOf(await (await w.open(jar, link)).text());
    const header = jar.header();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => {
        const fresh = new Jar();
        for (const [name, value] of jar.cookies) fresh.cookies.set(name, value);
        expect(fresh.header()).toBe(header);
        return send(w.config, fresh, "/auth/verify-email/password", { form: fields });
      }),
    );
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === ORIGIN)).toHaveLength(1);
    expect(locations.filter((l) => l === VERIFICATION_ERROR)).toHaveLength(19);
    const sessions = responses.filter((r) => setCookies(r).has("authjs.session-token"));
    expect(sessions).toHaveLength(1);
    expect(w.events.filter((e) => e.name === "updateUser")).toHaveLength(1);
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const proofs = (await w.securityLog.list(user.id, { limit: 50 })).filter(
      (e) => e.type === "emailVerified",
    );
    expect(proofs).toHaveLength(1);
  });
});

describe("anywhere else, the link never vouches for the sign-up's password", () => {
  test("written as the attacker: a stranger's sign-up with my address is mine once I choose a password", async () => {
    const w = passwordWorld();
    // The attacker signs up with the owner's address and a password of their own.
    const attacker = new Jar();
    await w.signUp(attacker, OWNER, PASSWORD);
    // Before the link is used, the attacker's password opens nothing.
    const early = await w.signIn(attacker, OWNER, PASSWORD);
    expect(early.headers.get("location")).toBe(signInErrorUrl("EmailNotVerified"));

    // The owner receives the link and opens it in their own browser: no confirm button, a form.
    const owner = new Jar();
    const link = w.lastLink(OWNER);
    const { html, response: withoutPassword } = await w.follow(owner, link);
    expect(html).toContain("Choose your password");
    expect(html).toContain('autocomplete="new-password"');
    expect(html).not.toContain("Confirm and sign in");
    // Posting the form without a password proves nothing and spends nothing.
    expect(withoutPassword.status).toBe(200);
    expect(await withoutPassword.text()).toContain("Choose your password");
    expect((await w.adapter.getUserByEmail(OWNER))!.emailVerified).toBeNull();
    expect(w.adapter.rows.count().verificationTokens).toBe(1);

    // A password the policy refuses: the form again, with why; still nothing spent.
    const weak = await w.follow(owner, link, { password: "short" });
    expect(weak.response.status).toBe(400);
    expect(await weak.response.text()).toContain("Use at least 15 characters");
    expect(w.adapter.rows.count().verificationTokens).toBe(1);

    const { response } = await w.follow(owner, link, { password: OTHER_PASSWORD });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(owner)).toBe(OWNER);
    expect((await w.adapter.getUserByEmail(OWNER))!.emailVerified).toBeInstanceOf(Date);

    // The attacker's password is void; the owner's signs in.
    const again = await w.signIn(new Jar(), OWNER, PASSWORD);
    expect(again.headers.get("location")).toBe(signInErrorUrl("CredentialsSignin", "credentials"));
    const mine = new Jar();
    await w.signIn(mine, OWNER, OTHER_PASSWORD);
    expect(await w.signedInAs(mine)).toBe(OWNER);
  });

  test("the browser that signed up is asked for a password too once the password changed", async () => {
    const w = passwordWorld();
    const jar = new Jar();
    await w.signUp(jar, OWNER, PASSWORD);
    // A second sign-up with the address (from this very browser) changes nothing but the
    // binding; its link cannot confirm a password it never stored.
    await w.signUp(jar, OWNER, OTHER_PASSWORD);
    const link = w.lastLink(OWNER);
    expect(w.mails.at(-1)!.kind).toBe("accountUnconfirmed");
    const page = await (await w.open(jar, link)).text();
    expect(page).toContain("Choose your password");
  });

  test("the binding names one link: a later email's link asks for a password even there", async () => {
    const w = passwordWorld();
    const first = new Jar();
    await w.signUp(first, OWNER, PASSWORD);
    // A second sign-up elsewhere mails the owner a link of its own (to claim the address).
    await w.signUp(new Jar(), OWNER, OTHER_PASSWORD);
    expect(w.mails.map((m) => m.kind)).toEqual(["verifyEmail", "accountUnconfirmed"]);
    const later = await (await w.open(first, w.lastLink(OWNER))).text();
    expect(later).toContain("Choose your password");
    const own = await (await w.open(first, new URL(w.mails[0]!.url))).text();
    expect(own).toContain("Confirm and sign in");
  });

  test("a JSON client posting the link from another browser is told to choose a password", async () => {
    const w = passwordWorld();
    await w.signUp(new Jar(), OWNER);
    const link = w.lastLink(OWNER);
    const other = new Jar();
    const token = link.searchParams.get("token")!;
    const { csrfToken } = await import("./helpers.js");
    const response = await send(w.config, other, "/auth/verify-email/password", {
      json: { csrfToken: await csrfToken(w.config, other), token, email: OWNER },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "PasswordRequired" });
    expect(w.adapter.rows.count().verificationTokens).toBe(1);
  });

  const strategies: [string, () => AuthConfig["session"]][] = [
    ["database sessions", () => ({ strategy: "database" })],
    [
      "JWT sessions with a revocation store",
      () => ({ strategy: "jwt", revocation: { store: MemoryRevocationStore() } }),
    ],
  ];
  for (const [name, session] of strategies) {
    test(`securing the account ends every session of whoever signed up (${name})`, async () => {
      const w = passwordWorld({
        password: { requireEmailVerification: false },
        config: { session: session() },
      });
      const attacker = new Jar();
      await w.signUp(attacker, OWNER, PASSWORD);
      await w.signIn(attacker, OWNER, PASSWORD);
      const second = new Jar();
      await w.signIn(second, OWNER, PASSWORD);
      expect(await w.signedInAs(attacker)).toBe(OWNER);

      const owner = new Jar();
      const { response } = await w.follow(owner, w.lastLink(OWNER), { password: OTHER_PASSWORD });
      expect(response.headers.get("location")).toBe(ORIGIN);
      expect(await w.signedInAs(owner)).toBe(OWNER);
      expect(await w.signedInAs(attacker)).toBeNull();
      expect(await w.signedInAs(second)).toBeNull();
      const user = (await w.adapter.getUserByEmail(OWNER))!;
      const revoked = (await w.securityLog.list(user.id, { limit: 20 })).find(
        (e) => e.type === "sessionRevoked",
      );
      expect(revoked).toMatchObject({ reason: "accountSecured" });
    });
  }
});
