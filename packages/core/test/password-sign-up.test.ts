/**
 * Sign-up with a password provider (docs/passwords.md): a new address gets an unproven user, a
 * pending password and an emailed link; a taken address gets nothing but an email to its owner,
 * and the answer (status, body, cookies) is the same either way; the policy and the app's field
 * schema refuse with a 400 that says what to change.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { Jar, ORIGIN, send, setCookies } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";

const VERIFY_PENDING = `${ORIGIN}/auth/verify-email/password`;

/** A response as an enumerating client compares it: status, location, body and cookie shapes. */
async function observed(response: Response) {
  const cookies = [...setCookies(response)].map(([name, { value, raw }]) => ({
    name,
    length: value.length,
    // The attributes, without the value (a fresh encryption each time) or the clock.
    attributes: raw
      .split(";")
      .slice(1)
      .map((a) => a.trim())
      .filter((a) => !a.startsWith("Expires=")),
  }));
  return {
    status: response.status,
    location: response.headers.get("location"),
    type: response.headers.get("content-type"),
    body: await response.text(),
    cookies,
  };
}

describe("a sign-up with a new address", () => {
  test("creates an unproven user with a pending password, mails a link and says so", async () => {
    const w = passwordWorld();
    const jar = new Jar();
    const response = await w.signUp(jar, "New@Example.com");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(VERIFY_PENDING);
    expect(jar.cookies.has("gatehouse.password-signup")).toBe(true);

    const user = await w.adapter.getUserByEmail("new@example.com");
    expect(user).toMatchObject({ email: "new@example.com", emailVerified: null });
    const account = await w.account("new@example.com");
    expect(account).toMatchObject({
      userId: user!.id,
      type: "password",
      provider: "password",
      providerAccountId: user!.id,
    });
    expect(account!.passwordHash).toMatch(/^pending\$scrypt\$N=1024,r=8,p=1\$/);

    expect(w.mails).toHaveLength(1);
    const [mail] = w.mails;
    expect(mail).toMatchObject({ kind: "verifyEmail", to: "new@example.com" });
    const link = new URL(mail!.url);
    expect(link.pathname).toBe("/auth/verify-email/password");
    expect(link.searchParams.get("email")).toBe("new@example.com");
    expect(link.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect(mail!.text).toContain(mail!.url);
    expect(mail!.expires!.valueOf()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    // The token is stored hashed, never as mailed.
    expect(w.adapter.rows.count().verificationTokens).toBe(1);

    const pending = await send(w.config, jar, "/auth/verify-email/password");
    expect(pending.status).toBe(200);
    expect(await pending.text()).toContain("Check your email");

    const events = await w.securityLog.list(user!.id, { limit: 10 });
    expect(events.map((e) => e.type)).toEqual(["signUp"]);
    expect(events[0]).toMatchObject({ provider: "password", providerType: "password" });
  });

  test("a JSON sign-up is answered with JSON", async () => {
    const w = passwordWorld();
    const response = await w.signUpJson(new Jar(), {
      email: "json@example.com",
      password: PASSWORD,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "verificationSent",
      message: "Check your email: open the link we sent to confirm your address.",
    });
    expect(w.mails.map((m) => m.kind)).toEqual(["verifyEmail"]);
  });

  test("the GET of the sign-up page shows the form, with the app's fields", async () => {
    const w = passwordWorld({ password: { formFields: { name: { label: "Your name" } } } });
    const response = await send(w.config, new Jar(), "/auth/signup/password");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('name="email"');
    expect(html).toContain('autocomplete="new-password"');
    expect(html).toContain('minlength="15"');
    expect(html).toContain("Your name");
    expect(html).toContain('name="csrfToken"');
  });
});

describe("a sign-up with a taken address answers as one with a new address", () => {
  const taken = "taken@example.com";

  async function compare(setup: (w: ReturnType<typeof passwordWorld>) => Promise<void>) {
    const w = passwordWorld();
    await setup(w);
    const before = w.adapter.rows.count();
    const mailsBefore = w.mails.length;
    const known = await observed(await w.signUp(new Jar(), taken));
    const afterKnown = w.adapter.rows.count();
    const unknown = await observed(await w.signUp(new Jar(), "fresh@example.com"));
    expect(known).toEqual(unknown);
    const knownJson = await observed(
      await w.signUpJson(new Jar(), { email: taken, password: PASSWORD }),
    );
    const unknownJson = await observed(
      await w.signUpJson(new Jar(), { email: "other-fresh@example.com", password: PASSWORD }),
    );
    expect(knownJson).toEqual(unknownJson);
    return { w, before, afterKnown, mails: w.mails.slice(mailsBefore) };
  }

  test("a proven address: nothing is created or changed, and its owner is told", async () => {
    const { w, before, afterKnown, mails } = await compare(async (w) => {
      await w.adapter.createUser({ id: randomUUID(), email: taken, emailVerified: new Date() });
    });
    expect(afterKnown).toEqual({ ...before, verificationTokens: before.verificationTokens });
    expect(await w.account(taken)).toBeNull();
    const toOwner = mails.filter((m) => m.to === taken);
    expect(toOwner.map((m) => m.kind)).toEqual(["accountExists", "accountExists"]);
    expect(toOwner[0]!.url).toBe(`${ORIGIN}/auth/signin`);
    expect(toOwner[0]!.text).toContain("Someone tried to sign up");
  });

  test("an unproven password sign-up: its password stays, and the owner may claim the address", async () => {
    const { w, mails } = await compare(async (w) => {
      await w.signUp(new Jar(), taken, "the first password chosen here");
    });
    const toOwner = mails.filter((m) => m.to === taken);
    expect(toOwner.map((m) => m.kind)).toEqual(["accountUnconfirmed", "accountUnconfirmed"]);
    expect(new URL(toOwner[0]!.url).pathname).toBe("/auth/verify-email/password");
    // The first sign-up's password was not replaced by the later ones.
    const user = (await w.adapter.getUserByEmail(taken))!;
    const events = await w.securityLog.list(user.id, { limit: 10 });
    expect(events.map((e) => e.type)).toEqual(["signUp"]);
  });

  test("a taken address whose user holds another way in gets no link to claim it", async () => {
    const { mails } = await compare(async (w) => {
      const user = await w.adapter.createUser({
        id: randomUUID(),
        email: taken,
        emailVerified: null,
      });
      await w.adapter.linkAccount({
        userId: user.id,
        type: "oauth",
        provider: "github",
        providerAccountId: "42",
      });
    });
    expect(mails.filter((m) => m.to === taken).map((m) => m.kind)).toEqual([
      "accountExists",
      "accountExists",
    ]);
  });
});

describe("refusals say what to change", () => {
  test("a password the policy refuses: 400 JSON with its reason, nothing created or mailed", async () => {
    const w = passwordWorld();
    const short = await w.signUpJson(new Jar(), { email: "a@example.com", password: "short" });
    expect(short.status).toBe(400);
    const body = (await short.json()) as { error: string; message: string };
    expect(body.error).toBe("PasswordTooShort");
    expect(body.message).toContain("at least 15 characters");
    // The account's own address is as guessable as a common password.
    const common = await w.signUpJson(new Jar(), {
      email: "alexander.hamilton@example.com",
      password: "Alexander.Hamilton@example.com",
    });
    expect(((await common.json()) as { error: string }).error).toBe("PasswordTooCommon");
    expect(w.adapter.rows.count()).toMatchObject({ users: 0, accounts: 0, verificationTokens: 0 });
    expect(w.mails).toEqual([]);
    expect(w.logger.error).not.toHaveBeenCalled();
  });

  test("a form post gets the sign-up page again, with the message and what was typed", async () => {
    const w = passwordWorld();
    const response = await w.signUp(new Jar(), "typed@example.com", "short");
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("Use at least 15 characters");
    expect(html).toContain('value="typed@example.com"');
    expect(html).not.toContain("short");
    expect(w.adapter.rows.count().users).toBe(0);
  });

  test("an address that is none is refused", async () => {
    const w = passwordWorld();
    const response = await w.signUpJson(new Jar(), { email: "not an address", password: PASSWORD });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("InvalidEmail");
  });

  test("without a schema, any extra field is refused", async () => {
    const w = passwordWorld();
    const response = await w.signUpJson(new Jar(), {
      email: "x@example.com",
      password: PASSWORD,
      role: "admin",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "InvalidFields",
      issues: [{ path: "role", message: "Unknown field" }],
    });
    expect(w.adapter.rows.count().users).toBe(0);
  });

  test("the app's schema validates its fields; they are stored; unknown ones are refused", async () => {
    const fields = z.object({ name: z.string().min(1).max(50) });
    const w = passwordWorld({ password: { fields } });
    const bad = await w.signUpJson(new Jar(), {
      email: "x@example.com",
      password: PASSWORD,
      name: "",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "InvalidFields", issues: [{ path: "name" }] });
    const extra = await w.signUpJson(new Jar(), {
      email: "x@example.com",
      password: PASSWORD,
      name: "Xavier",
      emailVerified: "2020-01-01",
    });
    expect(await extra.json()).toMatchObject({
      error: "InvalidFields",
      issues: [{ path: "emailVerified", message: "Unknown field" }],
    });
    expect(w.adapter.rows.count().users).toBe(0);
    const good = await w.signUp(new Jar(), "x@example.com", PASSWORD, { name: "Xavier" });
    expect(good.status).toBe(302);
    expect(await w.adapter.getUserByEmail("x@example.com")).toMatchObject({
      name: "Xavier",
      emailVerified: null,
    });
  });

  test("a schema that would set what Gatehouse decides is refused", async () => {
    const fields = z.object({ id: z.string() });
    const w = passwordWorld({ password: { fields } });
    const response = await w.signUpJson(new Jar(), {
      email: "x@example.com",
      password: PASSWORD,
      id: "chosen",
    });
    expect(await response.json()).toMatchObject({
      error: "InvalidFields",
      issues: [{ path: "id", message: "This field cannot be set" }],
    });
  });

  test("a sign-up without the CSRF token is refused and creates nothing", async () => {
    const w = passwordWorld();
    const response = await send(w.config, new Jar(), "/auth/signup/password", {
      form: { email: "x@example.com", password: PASSWORD },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
    expect(w.adapter.rows.count().users).toBe(0);
    expect(w.mails).toEqual([]);
  });
});

describe("mail that cannot be sent", () => {
  test("leaves no redeemable link, and the sign-up fails as an email sign-in does", async () => {
    const w = passwordWorld({
      password: {
        sendEmail: () => {
          throw new Error("SMTP down");
        },
      },
    });
    const response = await w.signUp(new Jar(), "x@example.com");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toContain("error=EmailSignin");
    expect(response.headers.get("location")).toContain("code=send_failed");
    expect(w.adapter.rows.count().verificationTokens).toBe(0);
    expect(setCookies(response).has("gatehouse.password-signup")).toBe(false);
  });
});
