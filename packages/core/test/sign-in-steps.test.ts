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
import { attach } from "../src/lib/feature.js";
import { parseRequest } from "../src/lib/request.js";
import {
  CHALLENGE_MAX_AGE,
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
const SESSION = "authjs.session-token";

/** A configuration with `steps` registered the way a feature registers them. */
function withSteps(config: AuthConfig, steps: SignInStep[]): ResolvedConfig {
  const resolved = resolveConfig(config);
  attach(resolved, { steps });
  return resolved;
}

/** What a step's route does once its check passed: resume the sign-in waiting in this browser. */
async function resume(config: AuthConfig, jar: Jar, stepId: string) {
  const headers = new Headers({ cookie: jar.header() });
  const req = await parseRequest(new Request(`${ORIGIN}/auth/session`, { headers }), "/auth");
  const ctx = new Context(req, resolveConfig(config));
  const pending = await pendingSignIn(ctx);
  if (!pending) return { pending, result: undefined, ctx };
  return { pending, result: await resumeSignIn(ctx, pending, stepId), ctx };
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
