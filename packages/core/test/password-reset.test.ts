/**
 * Resetting a forgotten password (docs/passwords.md): a request answers the same for every
 * address; the emailed link is scanner-safe, single-use, expires, and only the newest works (a
 * newer request, a completed reset or a password change ends the older ones); a reset ends every
 * session of the user, under either strategy, and is recorded and told to the address.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { Jar, ORIGIN, send, setCookies } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const OWNER = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";
const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`;
const SENT_PAGE = `${ORIGIN}/auth/reset-password/password`;

/** No per-address email limit: these tests ask for more than three resets of one address. */
const unlimited: Partial<AuthConfig> = { rateLimit: { email: { perAddress: false } } };

/** The reset link of the last reset email to `to`. */
function resetLink(w: ReturnType<typeof passwordWorld>, to = OWNER): URL {
  return new URL(w.lastMail(to, "resetPassword").url);
}

/** Signs `jar` in with `password` and checks it worked. */
async function signedInWith(w: ReturnType<typeof passwordWorld>, jar: Jar, password = PASSWORD) {
  const response = await w.signIn(jar, OWNER, password);
  expect(response.headers.get("location")).toBe(ORIGIN);
  return jar;
}

describe("a reset link", () => {
  test("its GET is a form that spends nothing; its POST sets the password and signs in", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    const asked = await w.requestReset(new Jar(), OWNER);
    expect(asked.status).toBe(302);
    expect(asked.headers.get("location")).toBe(SENT_PAGE);
    const mail = w.lastMail(OWNER);
    expect(mail.kind).toBe("resetPassword");
    expect(mail.expires!.valueOf() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(mail.expires!.valueOf() - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const link = resetLink(w);
    expect(link.pathname).toBe("/auth/reset-password/password");

    // A mail scanner opens the link: a page, nothing spent, the password unchanged.
    const scanned = await w.open(new Jar(), link);
    expect(scanned.status).toBe(200);
    expect(scanned.headers.get("referrer-policy")).toBe("no-referrer");
    const page = await scanned.text();
    expect(page).toContain("Choose a new password");
    expect(page).toContain('autocomplete="new-password"');
    expect(page).toMatch(/<label for="input-password-for-password-provider">New password<\/label>/);
    expect(w.adapter.rows.count().verificationTokens).toBe(1);

    const browser = new Jar();
    const { response } = await w.follow(browser, link, { password: NEW_PASSWORD });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(browser)).toBe(OWNER);
    expect(w.adapter.rows.count().verificationTokens).toBe(0);

    // The old password is gone, the new one signs in.
    const old = await w.signIn(new Jar(), OWNER, PASSWORD);
    expect(old.headers.get("location")).toContain("error=CredentialsSignin");
    await signedInWith(w, new Jar(), NEW_PASSWORD);

    // The address is told, and the log has both steps.
    const told = w.lastMail(OWNER);
    expect(told.kind).toBe("passwordChanged");
    expect(told.url).toBe(`${ORIGIN}/auth/forgot-password/password`);
    const types = (await w.securityLog.list(user.id, { limit: 20 })).map((e) => e.type);
    expect(types).toContain("passwordResetRequested");
    expect(types).toContain("passwordReset");
    expect(types.indexOf("passwordReset")).toBeLessThan(types.indexOf("passwordResetRequested"));

    // Used once: the same link again sets nothing.
    const again = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
    expect(again.response.headers.get("location")).toBe(VERIFICATION_ERROR);
    await signedInWith(w, new Jar(), NEW_PASSWORD);
  });

  test("a new password the policy refuses: the form again, with why, and nothing spent", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const { response } = await w.follow(new Jar(), resetLink(w), { password: "short" });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Use at least 15 characters");
    expect(html).toMatch(/<div id="error" class="error" role="alert" tabindex="-1" autofocus>/);
    expect(html).toMatch(/name="password"[^>]*aria-invalid="true"/);
    expect(w.adapter.rows.count().verificationTokens).toBe(1);
    const later = await w.follow(new Jar(), resetLink(w), { password: NEW_PASSWORD });
    expect(later.response.headers.get("location")).toBe(ORIGIN);
  });

  test("JSON clients: the request answers resetSent, the reset a refusal or a sign-in", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const asked = await w.requestReset(new Jar(), OWNER, true);
    expect(asked.status).toBe(200);
    expect(await asked.json()).toEqual({
      status: "resetSent",
      message: "If an account uses this address, we sent it a link to choose a new password.",
    });
    const link = resetLink(w);
    const jar = new Jar();
    const { csrfToken } = await import("./helpers.js");
    const body = {
      csrfToken: await csrfToken(w.config, jar),
      token: link.searchParams.get("token"),
      email: OWNER,
    };
    const weak = await send(w.config, jar, "/auth/reset-password/password", {
      json: { ...body, password: "short" },
    });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toMatchObject({ error: "PasswordTooShort" });
    const done = await send(w.config, jar, "/auth/reset-password/password", {
      json: { ...body, password: NEW_PASSWORD },
      headers: { "X-Auth-Return-Redirect": "1" },
    });
    expect(await done.json()).toEqual({ url: ORIGIN });
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("expires after resetMaxAge (1 hour by default)", async () => {
    const w = passwordWorld({ password: { resetMaxAge: 1 } });
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { response } = await w.follow(new Jar(), resetLink(w), { password: NEW_PASSWORD });
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    await signedInWith(w, new Jar(), PASSWORD);
  });

  test("20 concurrent uses of one link: one reset, one session, one email", async () => {
    const w = passwordWorld();
    const user = await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const jar = new Jar();
    const { fields } = formOf(await (await w.open(jar, resetLink(w))).text());
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const fresh = new Jar();
        for (const [name, value] of jar.cookies) fresh.cookies.set(name, value);
        return send(w.config, fresh, "/auth/reset-password/password", {
          form: { ...fields, password: `${NEW_PASSWORD} number ${i}` },
        });
      }),
    );
    const locations = responses.map((r) => r.headers.get("location"));
    expect(locations.filter((l) => l === ORIGIN)).toHaveLength(1);
    expect(locations.filter((l) => l === VERIFICATION_ERROR)).toHaveLength(19);
    expect(responses.filter((r) => setCookies(r).has("authjs.session-token"))).toHaveLength(1);
    const resets = (await w.securityLog.list(user.id, { limit: 50 })).filter(
      (e) => e.type === "passwordReset",
    );
    expect(resets).toHaveLength(1);
    expect(w.mails.filter((m) => m.kind === "passwordChanged")).toHaveLength(1);
    // The one that won set its own password.
    const winner = locations.indexOf(ORIGIN);
    await signedInWith(w, new Jar(), `${NEW_PASSWORD} number ${winner}`);
  });
});

describe("only the newest link works", () => {
  test("a newer request ends every older link", async () => {
    const w = passwordWorld({ config: unlimited });
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const first = resetLink(w);
    await w.requestReset(new Jar(), OWNER);
    const second = resetLink(w);
    expect(second.href).not.toBe(first.href);
    const old = await w.follow(new Jar(), first, { password: NEW_PASSWORD });
    expect(old.response.headers.get("location")).toBe(VERIFICATION_ERROR);
    await signedInWith(w, new Jar(), PASSWORD);
    const newest = await w.follow(new Jar(), second, { password: NEW_PASSWORD });
    expect(newest.response.headers.get("location")).toBe(ORIGIN);
  });

  test("a completed reset ends every link, the used one and those before it", async () => {
    const w = passwordWorld({ config: unlimited });
    await w.verifiedUser(OWNER);
    const links: URL[] = [];
    for (let i = 0; i < 3; i++) {
      await w.requestReset(new Jar(), OWNER);
      links.push(resetLink(w));
    }
    await w.follow(new Jar(), links[2]!, { password: NEW_PASSWORD });
    for (const link of links) {
      const { response } = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
      expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    }
    await signedInWith(w, new Jar(), NEW_PASSWORD);
  });

  test("a password change ends the link asked for before it", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const link = resetLink(w);
    const jar = await signedInWith(w, new Jar());
    const changed = await w.changePassword(jar, PASSWORD, NEW_PASSWORD);
    expect(changed.headers.get("location")).toBe(ORIGIN);
    const { response } = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    await signedInWith(w, new Jar(), NEW_PASSWORD);
  });

  test("a link for another address, or with a token of another's, sets nothing", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    await w.verifiedUser("other@example.com");
    await w.requestReset(new Jar(), "other@example.com");
    const theirs = resetLink(w, "other@example.com");
    theirs.searchParams.set("email", OWNER);
    const { response } = await w.follow(new Jar(), theirs, { password: NEW_PASSWORD });
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
    await signedInWith(w, new Jar(), PASSWORD);
  });
});

describe("a request answers the same for every address", () => {
  /** What a client sees: status, location, body, and each cookie without its value. */
  async function observed(response: Response) {
    return {
      status: response.status,
      location: response.headers.get("location"),
      type: response.headers.get("content-type"),
      body: await response.text(),
      cookies: [...setCookies(response)].map(([name, { raw }]) => [
        name,
        raw.replace(/=[^;]*/, "=…"),
      ]),
    };
  }

  test("a password account, an unknown address, an account without a password, an unproven one", async () => {
    const base = MemoryAdapter();
    const calls: string[] = [];
    const counted = Object.fromEntries(
      Object.entries(base).map(([name, method]) => [
        name,
        typeof method === "function"
          ? (...args: unknown[]) => {
              calls.push(name);
              return (method as (...a: unknown[]) => unknown)(...args);
            }
          : method,
      ]),
    ) as typeof base;
    const reads = () => calls.filter((name) => /^(get|list)/.test(name));
    const w = passwordWorld({ adapter: counted });
    await w.verifiedUser("known@example.com");
    await base.createUser({
      id: crypto.randomUUID(),
      email: "oauth@example.com",
      emailVerified: new Date(),
    });
    await w.signUp(new Jar(), "unproven@example.com");
    const addresses = [
      "known@example.com",
      "unknown@example.com",
      "oauth@example.com",
      "unproven@example.com",
    ];
    for (const json of [false, true]) {
      const answers = [];
      const readsOf: Record<string, string[]> = {};
      const callsOf: Record<string, number> = {};
      for (const address of addresses) {
        const jar = new Jar();
        await send(w.config, jar, "/auth/csrf");
        const before = w.mails.length;
        calls.length = 0;
        answers.push(await observed(await w.requestReset(jar, address, json)));
        readsOf[address] = reads();
        callsOf[address] = calls.length;
        // Each address gets exactly one email, whatever it says.
        expect(w.mails.slice(before).map((m) => m.to)).toEqual([address]);
      }
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
      // The same reads for an unknown address as for one with a password.
      expect(readsOf["unknown@example.com"]).toEqual(readsOf["known@example.com"]);
      expect(readsOf["oauth@example.com"]).toEqual(readsOf["known@example.com"]);
      // And as many adapter calls in all: writes that change nothing stand in for the reset's.
      expect(callsOf["unknown@example.com"]).toBe(callsOf["known@example.com"]);
      expect(callsOf["oauth@example.com"]).toBe(callsOf["known@example.com"]);
    }
    const kinds = Object.fromEntries(w.mails.slice(-4).map((m) => [m.to, m.kind]));
    expect(kinds).toEqual({
      "known@example.com": "resetPassword",
      "unknown@example.com": "resetUnavailable",
      "oauth@example.com": "resetUnavailable",
      "unproven@example.com": "resetUnconfirmed",
    });
  });

  test("a malformed address is refused alike, whoever asks", async () => {
    const w = passwordWorld();
    const form = await w.requestReset(new Jar(), "not an address");
    expect(form.status).toBe(400);
    const html = await form.text();
    expect(html).toContain("Enter a valid email address.");
    expect(html).toMatch(/name="email"[^>]*aria-invalid="true"/);
    const json = await w.requestReset(new Jar(), "not an address", true);
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "InvalidEmail" });
    expect(w.mails).toHaveLength(0);
  });

  test("an unproven address's email lets its owner claim it, ending the sign-up's password", async () => {
    const w = passwordWorld();
    await w.signUp(new Jar(), OWNER, PASSWORD);
    await w.requestReset(new Jar(), OWNER);
    const mail = w.lastMail(OWNER);
    expect(mail.kind).toBe("resetUnconfirmed");
    const owner = new Jar();
    const { html, response } = await w.follow(owner, new URL(mail.url), {
      password: NEW_PASSWORD,
    });
    expect(html).toContain("Choose your password");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(owner)).toBe(OWNER);
    const stale = await w.signIn(new Jar(), OWNER, PASSWORD);
    expect(stale.headers.get("location")).toContain("error=CredentialsSignin");
  });

  test("the request's own limits apply: CSRF, and the email limits per address", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const forged = await send(w.config, new Jar(), "/auth/forgot-password/password", {
      form: { email: OWNER },
    });
    expect(forged.headers.get("location")).toContain("error=MissingCSRF");
    for (let i = 0; i < 3; i++) await w.requestReset(new Jar(), OWNER);
    const fourth = await w.requestReset(new Jar(), OWNER);
    expect(fourth.headers.get("location")).toContain("error=RateLimited");
    expect(w.mails.filter((m) => m.kind === "resetPassword")).toHaveLength(3);
  });
});

describe("a reset ends every session of the user", () => {
  const strategies: [string, () => AuthConfig["session"]][] = [
    ["database sessions", () => ({ strategy: "database" })],
    [
      "JWT sessions with a revocation store",
      () => ({ strategy: "jwt", revocation: { store: MemoryRevocationStore() } }),
    ],
  ];
  for (const [name, session] of strategies) {
    test(`on every other browser (${name})`, async () => {
      const w = passwordWorld({ config: { session: session() } });
      const user = await w.verifiedUser(OWNER);
      const laptop = await signedInWith(w, new Jar());
      const phone = await signedInWith(w, new Jar());
      expect(await w.signedInAs(laptop)).toBe(OWNER);

      await w.requestReset(new Jar(), OWNER);
      const browser = new Jar();
      const { response } = await w.follow(browser, resetLink(w), { password: NEW_PASSWORD });
      expect(response.headers.get("location")).toBe(ORIGIN);
      expect(await w.signedInAs(browser)).toBe(OWNER);
      expect(await w.signedInAs(laptop)).toBeNull();
      expect(await w.signedInAs(phone)).toBeNull();
      const revoked = (await w.securityLog.list(user.id, { limit: 20 })).find(
        (e) => e.type === "sessionRevoked",
      );
      expect(revoked).toMatchObject({ reason: "passwordReset" });
    });
  }

  test("a configuration that cannot end them is told once, when it is read", async () => {
    const cases: [string, Partial<AuthConfig>, string][] = [
      ["jwt", { session: { strategy: "jwt" } }, "session.revocation"],
      [
        "database",
        {
          adapter: (() => {
            const { listSessionsByUserId: _l, ...adapter } = MemoryAdapter();
            return adapter;
          })(),
          session: { strategy: "database" },
        },
        "listSessionsByUserId",
      ],
    ];
    for (const [strategy, config, named] of cases) {
      const w = passwordWorld({ config });
      await send(w.config, new Jar(), "/auth/session");
      await send(w.config, new Jar(), "/auth/csrf");
      await send(w.config, new Jar(), "/auth/providers");
      const warned = w.logger.warn.mock.calls.filter(
        ([code]) => code === "password-sessions-not-ended",
      );
      expect(warned, strategy).toHaveLength(1);
      const detail = warned[0]![1] as Error;
      expect(detail.message).toContain(named);
      expect(detail.message).toContain('"password"');
    }
    for (const session of strategies.map(([, s]) => s())) {
      const w = passwordWorld({ config: { session } });
      await send(w.config, new Jar(), "/auth/session");
      const codes = w.logger.warn.mock.calls.map(([code]) => code);
      expect(codes).not.toContain("password-sessions-not-ended");
    }
  });

  test("without a revocation store the reset still changes the password (as warned)", async () => {
    const w = passwordWorld({ config: { session: { strategy: "jwt" } } });
    await w.verifiedUser(OWNER);
    const laptop = await signedInWith(w, new Jar());
    await w.requestReset(new Jar(), OWNER);
    const browser = new Jar();
    await w.follow(browser, resetLink(w), { password: NEW_PASSWORD });
    expect(await w.signedInAs(browser)).toBe(OWNER);
    // The JWT cannot be revoked: this is what the warning is about.
    expect(await w.signedInAs(laptop)).toBe(OWNER);
    await signedInWith(w, new Jar(), NEW_PASSWORD);
  });
});

describe("the pages", () => {
  test("GET /forgot-password: a labelled address form, prefilled from ?email", async () => {
    const w = passwordWorld();
    const response = await send(
      w.config,
      new Jar(),
      "/auth/forgot-password/password?email=a%40example.com",
    );
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<h1>Reset your password</h1>");
    expect(html).toMatch(/<label for="input-email-for-password-provider">Email<\/label>/);
    expect(html).toContain('value="a@example.com"');
    expect(html).not.toContain("<script");
    const { action, fields } = formOf(html);
    expect(action).toBe(`${ORIGIN}/auth/forgot-password/password`);
    expect(fields.csrfToken).toBeTruthy();
  });

  test("GET /reset-password without a token: check your email", async () => {
    const w = passwordWorld();
    const html = await (await send(w.config, new Jar(), "/auth/reset-password/password")).text();
    expect(html).toContain("Check your email");
    expect(html).toContain(`href="${ORIGIN}/auth/signin"`);
  });

  test("the factory refuses a resetMaxAge that is not 1 second to 24 hours", async () => {
    const { default: Password } = await import("@gatehousejs/core/providers/password");
    for (const resetMaxAge of [0, -1, 86401, Number.NaN]) {
      expect(() => Password({ resetMaxAge })).toThrow(/resetMaxAge/);
    }
    expect(() => Password({ resetMaxAge: 86400 })).not.toThrow();
  });
});
