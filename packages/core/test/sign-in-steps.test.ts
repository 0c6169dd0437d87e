/**
 * Pending sign-in steps (lib/sign-in.ts): a step registered with the configuration holds a
 * sign-in between the `signIn` callback and its session. The browser gets no session, only an
 * encrypted short-lived challenge cookie and a redirect to the step's page; the step's route
 * resumes the sign-in, and only then is the session issued and the sign-in announced.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { type ResolvedConfig, resolveConfig } from "../src/lib/config.js";
import { Context } from "../src/lib/context.js";
import { defaultCookies } from "../src/lib/cookies.js";
import { attach } from "../src/lib/feature.js";
import type { SignInMoment } from "../src/lib/moments.js";
import { parseRequest } from "../src/lib/request.js";
import {
  CHALLENGE_MAX_AGE,
  completeSignIn,
  type PendingSignIn,
  pendingSignIn,
  resumeSignIn,
  type SignInStep,
} from "../src/lib/sign-in.js";
import {
  alice,
  credentialsConfig,
  Jar,
  ORIGIN,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const CHALLENGE = "gatehouse.sign-in-challenge";
const BINDING = "gatehouse.sign-in-binding";
const SESSION = "authjs.session-token";

/** A configuration with `steps` registered the way a feature registers them. */
function withSteps(config: AuthConfig, steps: SignInStep[]): ResolvedConfig {
  const resolved = resolveConfig(config);
  attach(resolved, { steps });
  return resolved;
}

/** A context for a request with the jar's cookies, as a step's route has. */
async function contextOf(config: AuthConfig, jar: Jar) {
  const headers = new Headers({ cookie: jar.header() });
  const req = await parseRequest(new Request(`${ORIGIN}/auth/session`, { headers }), "/auth");
  return new Context(req, resolveConfig(config));
}

/** What a step's route does once its check passed: resume the sign-in waiting in this browser. */
async function resume(config: AuthConfig, jar: Jar, stepId: string, factors?: string[]) {
  const ctx = await contextOf(config, jar);
  const pending = await pendingSignIn(ctx);
  if (!pending) return { pending, result: undefined, ctx };
  return { pending, result: await resumeSignIn(ctx, pending, stepId, factors), ctx };
}

/** Applies an internal result's cookies (and the context's queued ones) to the jar. */
function keep(jar: Jar, cookies: { name: string; value: string; options: { maxAge?: number } }[]) {
  for (const c of cookies) {
    if (c.options.maxAge === 0 || c.value === "") jar.cookies.delete(c.name);
    else jar.cookies.set(c.name, c.value);
  }
}

const totp = (page = "/two-factor"): SignInStep => ({ id: "totp", require: () => page });

describe("a step that holds the sign-in", () => {
  test("answers its page and a challenge cookie, never a session, and announces nothing", async () => {
    const signIn = vi.fn();
    const config = credentialsConfig({ events: { signIn } });
    const require = vi.fn((_ctx: unknown, _pending: PendingSignIn) => "/two-factor");
    withSteps(config, [{ id: "totp", require }]);
    const jar = new Jar();
    const response = await signInAlice(config, jar, { callbackUrl: "/dashboard" });

    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/two-factor`);
    const cookies = setCookies(response);
    expect(cookies.has(SESSION)).toBe(false);
    const challenge = cookies.get(CHALLENGE);
    expect(challenge?.raw).toMatch(/HttpOnly/);
    expect(challenge?.raw).toContain(`Max-Age=${CHALLENGE_MAX_AGE}`);
    // Encrypted: nothing of the user readable in it.
    expect(challenge?.value).not.toContain("alice");
    expect(signIn).not.toHaveBeenCalled();
    expect(require).toHaveBeenCalledTimes(1);
    expect(require.mock.calls[0]![1]).toMatchObject({
      user: { id: alice.id, email: alice.email },
      provider: { id: "credentials", type: "credentials" },
      isNewUser: false,
    });
    // The session check sees nobody.
    const session = await send(config, jar, "/auth/session");
    expect(await session.json()).toBeNull();
  });

  test("resuming after the step issues the session, announces the sign-in once, and goes to the callbackUrl", async () => {
    const signIn = vi.fn();
    const config = credentialsConfig({ events: { signIn } });
    withSteps(config, [totp()]);
    const jar = new Jar();
    await signInAlice(config, jar, { callbackUrl: `${ORIGIN}/dashboard` });

    const { pending, result, ctx } = await resume(config, jar, "totp");
    expect(pending?.user.email).toBe(alice.email);
    expect(pending?.passed).toEqual([]);
    expect(result?.redirect).toBe(`${ORIGIN}/dashboard`);
    expect(result?.cookies?.map((c) => c.name)).toContain(SESSION);
    // The challenge is spent: its deletion is queued on the response.
    expect(ctx.setCookies).toContainEqual(
      expect.objectContaining({
        name: CHALLENGE,
        value: "",
        options: expect.objectContaining({ maxAge: 0 }),
      }),
    );
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(signIn.mock.calls[0]![0]).toMatchObject({ user: { id: alice.id } });

    keep(jar, [...(result?.cookies ?? []), ...ctx.setCookies]);
    const session = await send(config, jar, "/auth/session");
    expect(await session.json()).toMatchObject({ user: { email: alice.email } });
    expect(jar.cookies.has(CHALLENGE)).toBe(false);
  });

  test("a second step comes after the first is passed, and the session only after both", async () => {
    const config = credentialsConfig();
    const second = vi.fn(() => "/auth/new-device");
    withSteps(config, [totp(), { id: "device", require: second }]);
    const jar = new Jar();
    await signInAlice(config, jar);
    expect(second).not.toHaveBeenCalled();

    const first = await resume(config, jar, "totp");
    expect(first.result?.redirect).toBe(`${ORIGIN}/auth/new-device`);
    expect(first.result?.cookies?.map((c) => c.name)).not.toContain(SESSION);
    expect((second.mock.calls[0] as unknown as [unknown, PendingSignIn])[1].passed).toEqual([
      "totp",
    ]);
    keep(jar, [...(first.result?.cookies ?? [])]);

    const last = await resume(config, jar, "device");
    expect(last.pending?.passed).toEqual(["totp"]);
    expect(last.result?.cookies?.map((c) => c.name)).toContain(SESSION);
  });

  test("a step that does not apply to this sign-in lets the session through at once", async () => {
    const config = credentialsConfig();
    withSteps(config, [{ id: "totp", require: () => undefined }]);
    const jar = new Jar();
    const response = await signInAlice(config, jar);
    expect(setCookies(response).has(SESSION)).toBe(true);
    expect(setCookies(response).has(CHALLENGE)).toBe(false);
  });

  test("a refused signIn callback stops the sign-in before any step is asked", async () => {
    const require = vi.fn(() => "/two-factor");
    const config = credentialsConfig({ callbacks: { signIn: () => false } });
    withSteps(config, [{ id: "totp", require }]);
    const response = await signInAlice(config, new Jar());
    expect(response.headers.get("location")).toContain("error=AccessDenied");
    expect(require).not.toHaveBeenCalled();
  });
});

describe("the challenge cookie", () => {
  test("one that was tampered with, forged under another secret, or expired holds no sign-in", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const jar = new Jar();
    await signInAlice(config, jar);
    const sealed = jar.cookies.get(CHALLENGE)!;

    const flipped = `${sealed.slice(0, -3)}${sealed.at(-3) === "A" ? "B" : "A"}${sealed.slice(-2)}`;
    jar.cookies.set(CHALLENGE, flipped);
    expect((await resume(config, jar, "totp")).pending).toBeNull();

    const pending = {
      user: alice,
      account: null,
      provider: { id: "credentials", type: "credentials" },
      isNewUser: false,
      callbackUrl: ORIGIN,
      passed: ["totp"],
    };
    jar.cookies.set(
      CHALLENGE,
      await encode({
        token: { p: pending },
        secret: "another-secret-another-secret-00",
        salt: CHALLENGE,
      }),
    );
    expect((await resume(config, jar, "totp")).pending).toBeNull();

    jar.cookies.set(
      CHALLENGE,
      await encode({ token: { p: pending }, secret: SECRET, salt: CHALLENGE, maxAge: -3600 }),
    );
    expect((await resume(config, jar, "totp")).pending).toBeNull();

    // Sealed for another cookie (salt): not a challenge either.
    jar.cookies.set(
      CHALLENGE,
      await encode({ token: { p: pending }, secret: SECRET, salt: SESSION }),
    );
    expect((await resume(config, jar, "totp")).pending).toBeNull();

    // Well sealed but not a pending sign-in.
    jar.cookies.set(
      CHALLENGE,
      await encode({
        token: { p: { ...pending, passed: "totp" } },
        secret: SECRET,
        salt: CHALLENGE,
      }),
    );
    expect((await resume(config, jar, "totp")).pending).toBeNull();
  });

  test("a session token is not a challenge: it cannot resume a sign-in", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const jar = new Jar();
    const session = await encode({
      token: { sub: alice.id, email: alice.email },
      secret: SECRET,
      salt: SESSION,
    });
    jar.cookies.set(CHALLENGE, session);
    expect((await resume(config, jar, "totp")).pending).toBeNull();
  });
});

describe("a held sign-in of a stored user", () => {
  test("an email link that is held creates and verifies the user, but issues the session only on resume", async () => {
    const adapter = MemoryAdapter();
    const signIn = vi.fn();
    const createUser = vi.fn();
    let sent = "";
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      session: { strategy: "database" },
      events: { signIn, createUser },
      logger: { error: vi.fn(), warn: vi.fn(), debug: vi.fn() },
      providers: [
        {
          id: "email",
          type: "email",
          name: "Email",
          from: "auth@example.com",
          maxAge: 600,
          confirm: false,
          sendVerificationRequest: ({ url }: { url: string }) => {
            sent = url;
          },
        } as never,
      ],
    };
    withSteps(config, [totp()]);
    const jar = new Jar();
    const csrf = (await (await send(config, jar, "/auth/csrf")).json()) as { csrfToken: string };
    await send(config, jar, "/auth/signin/email", {
      form: { csrfToken: csrf.csrfToken, email: "new@example.com" },
    });
    const link = new URL(sent);
    const held = await send(config, jar, `${link.pathname}${link.search}`);
    expect(held.headers.get("location")).toBe(`${ORIGIN}/two-factor`);
    expect(createUser).toHaveBeenCalledTimes(1);
    expect(signIn).not.toHaveBeenCalled();
    const user = await adapter.getUserByEmail("new@example.com");
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(setCookies(held).has(SESSION)).toBe(false);

    const { pending, result } = await resume(config, jar, "totp");
    expect(pending?.factors).toEqual(["email"]);
    // Dates come back as dates, and the session belongs to the stored user.
    expect(
      (pending?.user as { emailVerified?: unknown } | undefined)?.emailVerified,
    ).toBeInstanceOf(Date);
    const token = result?.cookies?.find((c) => c.name === SESSION)?.value;
    expect(token).toBeTruthy();
    expect((await adapter.getSessionAndUser!(token!))?.user.id).toBe(user?.id);
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(signIn.mock.calls[0]![0]).toMatchObject({ isNewUser: true });
  });
});

describe("what a refused sign-in tells its listeners", () => {
  test("the fields that name the account, never the password", async () => {
    const config = credentialsConfig();
    const resolved = resolveConfig(config);
    const heard: unknown[] = [];
    await signInAlice(config, new Jar(), { password: "not-wonderland-secret" });
    attach(resolved, {
      listeners: [{ signInRefused: (_ctx, moment) => void heard.push(moment) }],
    });
    await signInAlice(config, new Jar(), { password: "not-wonderland-secret" });
    expect(heard).toHaveLength(1);
    expect(JSON.stringify(heard)).not.toContain("not-wonderland-secret");
    expect(heard[0]).toMatchObject({ claimed: { username: "alice" } });
  });
});

/** A jar holding only the named cookies of `from`, as another browser would after a copy. */
function copyOf(from: Jar, ...names: string[]): Jar {
  const jar = new Jar();
  for (const name of names) jar.cookies.set(name, from.cookies.get(name)!);
  return jar;
}

describe("the challenge is bound to the browser it was sent to", () => {
  test("the binding cookie is HttpOnly and lives as long as the challenge, and holds no part of it", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const response = await signInAlice(config, new Jar());
    const cookies = setCookies(response);
    const binding = cookies.get(BINDING);
    expect(binding?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(binding?.raw).toMatch(/HttpOnly/);
    expect(binding?.raw).toMatch(/SameSite=Lax/i);
    expect(binding?.raw).toMatch(/Path=\//);
    expect(binding?.raw).toContain(`Max-Age=${CHALLENGE_MAX_AGE}`);
    expect(cookies.get(CHALLENGE)?.value).not.toContain(binding!.value);
    expect(defaultCookies(true).signInBinding.name).toBe(`__Secure-${BINDING}`);
    expect(defaultCookies(true).signInBinding.options.secure).toBe(true);
  });

  test("the challenge cookie copied alone into another browser holds no sign-in; with its binding it does", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const jar = new Jar();
    await signInAlice(config, jar);

    expect((await resume(config, copyOf(jar, CHALLENGE), "totp")).pending).toBeNull();
    const both = await resume(config, copyOf(jar, CHALLENGE, BINDING), "totp");
    expect(both.pending?.user.email).toBe(alice.email);
    expect(both.result?.cookies?.map((c) => c.name)).toContain(SESSION);
  });

  test("a binding cookie that was changed, or that belongs to another sign-in, holds no sign-in", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const victim = new Jar();
    await signInAlice(config, victim);
    const binding = victim.cookies.get(BINDING)!;

    const tampered = copyOf(victim, CHALLENGE);
    tampered.cookies.set(BINDING, `${binding.slice(0, -1)}${binding.at(-1) === "A" ? "B" : "A"}`);
    expect((await resume(config, tampered, "totp")).pending).toBeNull();
    tampered.cookies.set(BINDING, "");
    expect((await resume(config, tampered, "totp")).pending).toBeNull();

    // An attacker's own pending sign-in gives a binding, but not the one the victim's challenge seals.
    const attacker = new Jar();
    await signInAlice(config, attacker);
    attacker.cookies.set(CHALLENGE, victim.cookies.get(CHALLENGE)!);
    expect((await resume(config, attacker, "totp")).pending).toBeNull();
    // The victim's browser still holds its sign-in.
    expect((await resume(config, victim, "totp")).pending).not.toBeNull();
  });

  test("resuming deletes both cookies, and a further step sends a new binding", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp(), { id: "device", require: () => "/auth/new-device" }]);
    const jar = new Jar();
    await signInAlice(config, jar);
    const firstBinding = jar.cookies.get(BINDING);

    const first = await resume(config, jar, "totp");
    for (const name of [CHALLENGE, BINDING]) {
      expect(first.ctx.setCookies).toContainEqual(
        expect.objectContaining({
          name,
          value: "",
          options: expect.objectContaining({ maxAge: 0 }),
        }),
      );
    }
    keep(jar, [...first.ctx.setCookies, ...(first.result?.cookies ?? [])]);
    expect(jar.cookies.get(BINDING)).toBeTruthy();
    expect(jar.cookies.get(BINDING)).not.toBe(firstBinding);

    const last = await resume(config, jar, "device");
    expect(last.pending?.passed).toEqual(["totp"]);
    keep(jar, [...last.ctx.setCookies, ...(last.result?.cookies ?? [])]);
    expect(jar.cookies.has(CHALLENGE)).toBe(false);
    expect(jar.cookies.has(BINDING)).toBe(false);
    expect(jar.cookies.has(SESSION)).toBe(true);
  });
});

describe("each challenge has its own id and time", () => {
  test("every sealing mints a random challengeId and an issuedAt, and the step sees the ones it holds the sign-in on", async () => {
    const seen: PendingSignIn[] = [];
    const config = credentialsConfig();
    const require = (_ctx: unknown, pending: PendingSignIn) => {
      seen.push(pending);
      return "/two-factor";
    };
    withSteps(config, [{ id: "totp", require }]);
    const before = Date.now();
    const jars = [new Jar(), new Jar()];
    for (const jar of jars) await signInAlice(config, jar);
    const after = Date.now();

    const pendings = await Promise.all(
      jars.map(async (jar) => pendingSignIn(await contextOf(config, jar))),
    );
    for (const [i, pending] of pendings.entries()) {
      expect(pending?.challengeId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(pending?.issuedAt).toBeGreaterThanOrEqual(before);
      expect(pending?.issuedAt).toBeLessThanOrEqual(after);
      expect(pending?.challengeId).toBe(seen[i]?.challengeId);
      expect(pending?.issuedAt).toBe(seen[i]?.issuedAt);
    }
    expect(pendings[0]?.challengeId).not.toBe(pendings[1]?.challengeId);
    // Read twice, a challenge names itself the same way.
    const again = await pendingSignIn(await contextOf(config, jars[0]!));
    expect(again?.challengeId).toBe(pendings[0]?.challengeId);
    expect(again?.issuedAt).toBe(pendings[0]?.issuedAt);
  });

  test("a sign-in held again by a further step is sealed under a new challengeId", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp(), { id: "device", require: () => "/auth/new-device" }]);
    const jar = new Jar();
    await signInAlice(config, jar);
    const first = await resume(config, jar, "totp");
    keep(jar, [...first.ctx.setCookies, ...(first.result?.cookies ?? [])]);
    const second = await pendingSignIn(await contextOf(config, jar));
    expect(second?.challengeId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(second?.challengeId).not.toBe(first.pending?.challengeId);
    expect(second?.issuedAt).toBeGreaterThanOrEqual(first.pending!.issuedAt);
  });

  test("a well-sealed challenge without its id, its time or its factors holds no sign-in", async () => {
    const config = credentialsConfig();
    withSteps(config, [totp()]);
    const jar = new Jar();
    await signInAlice(config, jar);
    const pending = (await pendingSignIn(await contextOf(config, jar)))!;
    const b = await sha256(jar.cookies.get(BINDING)!);
    const seal = (p: unknown) => encode({ token: { p, b }, secret: SECRET, salt: CHALLENGE });

    jar.cookies.set(CHALLENGE, await seal(pending));
    expect((await resume(config, jar, "totp")).pending?.challengeId).toBe(pending.challengeId);
    for (const field of ["challengeId", "issuedAt", "factors"] as const) {
      const { [field]: _, ...without } = pending;
      jar.cookies.set(CHALLENGE, await seal(without));
      expect((await resume(config, jar, "totp")).pending, field).toBeNull();
    }
    jar.cookies.set(CHALLENGE, await seal({ ...pending, issuedAt: "soon" }));
    expect((await resume(config, jar, "totp")).pending).toBeNull();
  });
});

/** Hex SHA-256, as the kernel seals the binding. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Buffer.from(digest).toString("hex");
}

/** Registers `steps` and a listener that records the sign-in moments. */
function heard(config: AuthConfig, steps: SignInStep[]) {
  const moments: { name: string; moment: SignInMoment }[] = [];
  const resolved = withSteps(config, steps);
  attach(resolved, {
    listeners: [
      {
        sessionIssued: (_ctx, moment) => void moments.push({ name: "sessionIssued", moment }),
        signIn: (_ctx, moment) => void moments.push({ name: "signIn", moment }),
      },
    ],
  });
  return moments;
}

describe("what a sign-in has proved (factors)", () => {
  test("a credentials sign-in proved a password; a step's factors join it once", async () => {
    const config = credentialsConfig();
    const moments = heard(config, [totp()]);
    const jar = new Jar();
    await signInAlice(config, jar);

    const { pending, result } = await resume(config, jar, "totp", ["otp", "pwd", "otp"]);
    expect(pending?.factors).toEqual(["pwd"]);
    expect(result?.cookies?.map((c) => c.name)).toContain(SESSION);
    expect(moments.map((m) => m.name)).toEqual(["sessionIssued", "signIn"]);
    for (const { moment } of moments) expect(moment.factors).toEqual(["pwd", "otp"]);
  });

  test("without steps the session's moments carry the method's factor", async () => {
    const config = credentialsConfig();
    const moments = heard(config, []);
    expect(setCookies(await signInAlice(config, new Jar())).has(SESSION)).toBe(true);
    expect(moments.map((m) => m.moment.factors)).toEqual([["pwd"], ["pwd"]]);
  });

  test("a further step sees the factors proved so far, and the session gets them all", async () => {
    const config = credentialsConfig();
    const device = vi.fn((_ctx: unknown, _pending: PendingSignIn) => "/auth/new-device");
    const moments = heard(config, [totp(), { id: "device", require: device }]);
    const jar = new Jar();
    await signInAlice(config, jar);
    const first = await resume(config, jar, "totp", ["otp"]);
    expect(device.mock.calls[0]![1].factors).toEqual(["pwd", "otp"]);
    keep(jar, [...first.ctx.setCookies, ...(first.result?.cookies ?? [])]);
    const last = await resume(config, jar, "device");
    expect(last.pending?.factors).toEqual(["pwd", "otp"]);
    expect(moments.at(-1)?.moment.factors).toEqual(["pwd", "otp"]);
  });

  test.each([
    ["credentials", undefined, ["pwd"]],
    ["password", undefined, ["pwd"]],
    ["email", undefined, ["email"]],
    ["webauthn", undefined, ["hwk"]],
    ["webauthn", ["hwk", "user"], ["hwk", "user"]],
    ["oauth", undefined, ["fed"]],
    ["oidc", undefined, ["fed"]],
    ["phone", undefined, []],
  ])("a %s sign-in (method's factors %j) starts with %j", async (type, factors, expected) => {
    const config = credentialsConfig();
    const require = vi.fn((_ctx: unknown, _pending: PendingSignIn) => "/two-factor");
    withSteps(config, [{ id: "totp", require }]);
    const ctx = await contextOf(config, new Jar());
    const result = await completeSignIn(ctx, {
      provider: { id: type, type },
      callbackUrl: ORIGIN,
      gate: { user: alice, account: null },
      settle: () => ({ user: alice, account: null, isNewUser: false }),
      ...(factors ? { factors } : {}),
    });
    expect(result.redirect).toBe(`${ORIGIN}/two-factor`);
    expect(require.mock.calls[0]![1].factors).toEqual(expected);
  });
});
