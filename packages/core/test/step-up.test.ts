/**
 * Step-up (`requireRecentAuth`): a session carries when its sign-in happened and what it proved
 * (a JWT's `amr` claim, a database session's `factors`), kept across re-issues; a sensitive
 * action asks for a recent sign-in and the factors it needs, and is told where to sign in again.
 */

import { requireRecentAuth } from "@gatehousejs/core";
import { encode } from "@gatehousejs/core/jwt";
import TwoFactor from "@gatehousejs/core/two-factor";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { satisfies } from "../src/lib/features/step-up/recent-auth.js";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { credentialsConfig, csrfToken, Jar, ORIGIN, SECRET, send, signInAlice } from "./helpers.js";
import { passwordWorld } from "./password-world.js";

const PAGE = `${ORIGIN}/account/delete`;
const at = (jar: Jar) => new Request(PAGE, { headers: { cookie: jar.header() } });

afterEach(() => {
  vi.useRealTimers();
});

describe("what a session proved", () => {
  test("a password sign-in is pwd; asked for a second factor, the answer is to sign in again", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    expect(await requireRecentAuth(at(jar), config)).toMatchObject({
      ok: true,
      userId: "user-1",
      factors: ["pwd"],
    });
    const refused = await requireRecentAuth(at(jar), config, { factors: ["mfa"] });
    expect(refused).toMatchObject({ ok: false, reason: "factors" });
    const url = new URL((refused as { signInUrl: string }).signInUrl);
    expect(url.pathname).toBe("/auth/signin");
    expect(url.searchParams.get("callbackUrl")).toBe(PAGE);
  });

  test("no session is unauthenticated", async () => {
    expect(await requireRecentAuth(at(new Jar()), credentialsConfig())).toMatchObject({
      ok: false,
      reason: "unauthenticated",
    });
  });

  test("a sign-in older than maxAge is stale; signing in again makes it recent", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    await signInAlice(config, jar);
    vi.setSystemTime(new Date("2026-11-26T10:04:00Z"));
    expect((await requireRecentAuth(at(jar), config, { maxAge: 300 })).ok).toBe(true);
    vi.setSystemTime(new Date("2026-11-26T10:06:00Z"));
    expect(await requireRecentAuth(at(jar), config, { maxAge: 300 })).toMatchObject({
      ok: false,
      reason: "stale",
    });
    // The session's own check (a refresh, an update) does not make the proof recent.
    await send(config, jar, "/auth/session");
    await send(config, jar, "/auth/session", {
      json: { csrfToken: await csrfToken(config, jar), data: {} },
    });
    expect((await requireRecentAuth(at(jar), config, { maxAge: 300 })).ok).toBe(false);
    await signInAlice(config, jar);
    expect((await requireRecentAuth(at(jar), config, { maxAge: 300 })).ok).toBe(true);
  });

  test("amr survives a jwt callback that builds a new token", async () => {
    const config = credentialsConfig({
      callbacks: { jwt: ({ token }) => ({ sub: token.sub, name: token.name, role: "admin" }) },
    });
    const jar = new Jar();
    await signInAlice(config, jar);
    await send(config, jar, "/auth/session", {
      json: { csrfToken: await csrfToken(config, jar), data: {} },
    });
    expect(await requireRecentAuth(at(jar), config)).toMatchObject({ ok: true, factors: ["pwd"] });
  });

  test("a token without amr (Auth.js's) proves no factor", async () => {
    const config = credentialsConfig();
    const token = await encode({
      token: { sub: "user-1", auth_time: Math.floor(Date.now() / 1000) },
      secret: SECRET,
      salt: "authjs.session-token",
    });
    const jar = new Jar();
    jar.cookies.set("authjs.session-token", token);
    expect((await requireRecentAuth(at(jar), config)).ok).toBe(true);
    expect(await requireRecentAuth(at(jar), config, { factors: ["pwd"] })).toMatchObject({
      ok: false,
      reason: "factors",
    });
  });
});

describe("with two-factor sign-in", () => {
  const strategies: [string, Partial<AuthConfig>][] = [
    ["database sessions", { session: { strategy: "database" } }],
    ["JWT sessions", { session: { strategy: "jwt" } }],
  ];
  for (const [name, config] of strategies) {
    test(`${name}: password and code are two factors`, async () => {
      const w = passwordWorld({ config: { twoFactor: TwoFactor(), ...config } });
      await w.verifiedUser("owner@example.com");
      const jar = new Jar();
      await w.signIn(jar, "owner@example.com");
      expect(await requireRecentAuth(at(jar), w.config, { factors: ["mfa"] })).toMatchObject({
        ok: false,
        reason: "factors",
      });
      const post = async (path: string, body: Record<string, unknown> = {}) =>
        send(w.config, jar, `/auth/${path}`, {
          json: { csrfToken: await csrfToken(w.config, jar), ...body },
        });
      const { secret } = (await (await post("two-factor/enroll")).json()) as { secret: string };
      await post("two-factor/confirm", { code: await totpCode(secret, totpStep()) });
      await w.signIn(jar, "owner@example.com");
      await post("two-factor/challenge", { code: await totpCode(secret, totpStep() + 1) });
      expect(await requireRecentAuth(at(jar), w.config, { factors: ["mfa"] })).toMatchObject({
        ok: true,
        factors: ["pwd", "otp"],
      });
    });
  }
});

test("mfa is two kinds of factor", () => {
  expect(satisfies(["pwd", "otp"], ["mfa"])).toBe(true);
  expect(satisfies(["hwk", "user"], ["mfa"])).toBe(true);
  expect(satisfies(["hwk"], ["mfa"])).toBe(false);
  expect(satisfies(["pwd"], ["mfa"])).toBe(false);
  expect(satisfies(["otp", "hwk"], ["mfa"])).toBe(false);
  expect(satisfies(["email", "otp"], ["otp"])).toBe(true);
  expect(satisfies(["fed"], ["mfa"])).toBe(false);
  expect(satisfies([], [])).toBe(true);
});

describe("the built-in sensitive actions of a user with two-factor sign-in", () => {
  async function twoFactorUser() {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    const w = passwordWorld({
      config: { twoFactor: TwoFactor(), session: { strategy: "database" } },
      emailSignIn: true,
    });
    await w.verifiedUser("owner@example.com");
    const jar = new Jar();
    await w.signIn(jar, "owner@example.com");
    const post = async (path: string, body: Record<string, unknown> = {}) =>
      send(w.config, jar, `/auth/${path}`, {
        json: { csrfToken: await csrfToken(w.config, jar), ...body },
      });
    const { secret } = (await (await post("two-factor/enroll")).json()) as { secret: string };
    await post("two-factor/confirm", { code: await totpCode(secret, totpStep()) });
    return { w, jar, post, secret };
  }

  test("a session from a sign-in over ten minutes ago is sent to sign in again; a fresh one acts", async () => {
    const { w, jar, post, secret } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const asks = [
      post("change-password/password", {
        currentPassword: "correct horse battery staple",
        password: "a different passphrase entirely",
      }),
      post("change-email/password", {
        email: "new@example.com",
        currentPassword: "correct horse battery staple",
      }),
      post("remove-password/password", { currentPassword: "correct horse battery staple" }),
      post("sessions/revoke", { others: true }),
    ];
    for (const answer of await Promise.all(asks)) {
      expect(answer.status).toBe(403);
      const body = (await answer.json()) as { error: string; signInUrl: string };
      expect(body.error).toBe("ReauthenticationRequired");
      expect(new URL(body.signInUrl).pathname).toBe("/auth/signin");
    }
    const user = (await w.adapter.getUserByEmail("owner@example.com"))!;
    const logged = await w.securityLog.list(user.id, { limit: 50 });
    expect(
      logged
        .filter((e) => e.type === "stepUpRequired")
        .map((e) => e.reason)
        .sort(),
    ).toEqual(["change-email", "change-password", "remove-password", "sessions/revoke"]);
    // Nothing changed: the old password still works (after its second factor).
    expect((await w.signIn(new Jar(), "owner@example.com")).headers.get("location")).toContain(
      "/auth/two-factor/challenge",
    );
    // Signing in again (password, then the code) makes the session fresh.
    await w.signIn(jar, "owner@example.com");
    await post("two-factor/challenge", { code: await totpCode(secret, totpStep() + 1) });
    const changed = await post("change-password/password", {
      currentPassword: "correct horse battery staple",
      password: "a different passphrase entirely",
    });
    expect(changed.status).toBe(200);
  });

  test("a fetch caller that names its page comes back to it after signing in again", async () => {
    const { post } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const answer = await post("change-password/password", {
      currentPassword: "correct horse battery staple",
      password: "a different passphrase entirely",
      callbackUrl: "/settings/security",
    });
    expect(answer.status).toBe(403);
    const { signInUrl } = (await answer.json()) as { signInUrl: string };
    expect(new URL(signInUrl).searchParams.get("callbackUrl")).toBe(`${ORIGIN}/settings/security`);
  });

  test("a hostile callbackUrl is refused, not put in the sign-in link", async () => {
    const { post } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const answer = await post("change-password/password", {
      currentPassword: "correct horse battery staple",
      password: "a different passphrase entirely",
      callbackUrl: "https://evil.example/phish",
    });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body.error).toBe("InvalidCallbackUrl");
    expect(JSON.stringify(body)).not.toContain("evil.example");
  });

  test("a browser form is taken to the sign-in page, coming back to the action's page", async () => {
    const { w, jar } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const answer = await send(w.config, jar, "/auth/change-password/password", {
      form: {
        csrfToken: await csrfToken(w.config, jar),
        currentPassword: "correct horse battery staple",
        password: "a different passphrase entirely",
      },
    });
    expect(answer.status).toBe(302);
    const to = new URL(answer.headers.get("location")!);
    expect(to.pathname).toBe("/auth/signin");
    expect(to.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/auth/change-password/password`);
  });

  test("a user without two-factor keeps the actions' own checks only", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    const w = passwordWorld({
      config: { twoFactor: TwoFactor(), session: { strategy: "database" } },
    });
    await w.verifiedUser("plain@example.com");
    const jar = new Jar();
    await w.signIn(jar, "plain@example.com");
    vi.setSystemTime(new Date("2026-11-26T12:00:00Z"));
    const changed = await send(w.config, jar, "/auth/change-password/password", {
      json: {
        csrfToken: await csrfToken(w.config, jar),
        currentPassword: "correct horse battery staple",
        password: "a different passphrase entirely",
      },
    });
    expect(changed.status).toBe(200);
  });
});
