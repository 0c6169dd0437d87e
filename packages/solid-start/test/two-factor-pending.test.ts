/**
 * A pending two-factor challenge seen from the SolidStart helpers: after the password, the
 * browser holds only the challenge cookies, and `getSession`, `requireSession`, `authMiddleware`,
 * a `POST /session` update and core's `getSession` all treat it as signed out; the right code
 * turns it into a session that every one of them sees.
 */

import { getSession as coreGetSession } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { hashPassword } from "@gatehousejs/core/password";
import Password from "@gatehousejs/core/providers/password";
import TwoFactor from "@gatehousejs/core/two-factor";
import {
  authMiddleware,
  getSession,
  requireSession,
  SolidAuth,
  type SolidAuthConfig,
} from "@gatehousejs/solid-start";
import { provideRequestEvent } from "solid-js/web/storage";
import { expect, test } from "vitest";
import { totpCode, totpStep } from "../../core/src/lib/features/two-factor/totp.js";
import { appRequest, credentialsConfig, eventV1, eventV2, Jar, SESSION_COOKIE } from "./support.js";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const FAST_HASH = { N: 1024, r: 8, p: 1 };

/** The password provider with two-factor on, the route's handler, and JSON/form posts to it. */
function twoFactorApp() {
  const adapter = MemoryAdapter();
  const config: SolidAuthConfig = credentialsConfig({
    adapter,
    twoFactor: TwoFactor(),
    providers: [Password({ hash: FAST_HASH, sendEmail: () => {} })],
  });
  const route = SolidAuth(config);

  async function send(jar: Jar, request: Request): Promise<Response> {
    const response = await route.POST({ request, clientAddress: "127.0.0.1" });
    if (!response) throw new Error(`No answer for ${request.method} ${request.url}`);
    jar.apply(response);
    return response;
  }
  async function csrf(jar: Jar): Promise<string> {
    const response = await send(jar, appRequest("/api/auth/csrf", jar));
    return ((await response.json()) as { csrfToken: string }).csrfToken;
  }
  async function postJson(jar: Jar, path: string, body: Record<string, unknown> = {}) {
    const request = appRequest(`/api/auth/${path}`, jar, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    return send(
      jar,
      new Request(request, { body: JSON.stringify({ csrfToken: await csrf(jar), ...body }) }),
    );
  }
  async function signIn(jar: Jar): Promise<Response> {
    const form = { csrfToken: await csrf(jar), email: EMAIL, password: PASSWORD };
    return send(jar, appRequest("/api/auth/callback/password", jar, { form }));
  }
  async function signOut(jar: Jar): Promise<Response> {
    const form = { csrfToken: await csrf(jar) };
    return send(jar, appRequest("/api/auth/signout", jar, { form }));
  }
  /** A user whose address is proven, holding PASSWORD. */
  async function verifiedUser() {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: EMAIL,
      emailVerified: new Date(),
    });
    await adapter.linkAccount({
      userId: user.id,
      type: "password",
      provider: "password",
      providerAccountId: user.id,
      passwordHash: await hashPassword(PASSWORD, FAST_HASH),
    });
  }
  return { config, postJson, signIn, signOut, verifiedUser };
}

/** What each server-side reader makes of the cookies in `jar`. */
async function readers(config: SolidAuthConfig, jar: Jar) {
  const page = () => appRequest("/account", jar);
  const solid = await provideRequestEvent(eventV1(page()), () => getSession(page(), config));
  const core = await coreGetSession(page(), config);
  const required = await provideRequestEvent(eventV2(page()), () =>
    requireSession(config).catch((thrown: unknown) => thrown),
  );
  const onRequest = authMiddleware(config, { protectedPaths: ["/account"] });
  const middleware = await onRequest(eventV1(page()));
  return { solid, core, required, middleware };
}

test("with a challenge pending no helper sees a session; the right code gives one to all", async () => {
  const app = twoFactorApp();
  await app.verifiedUser();

  // Enrol from a signed-in browser, then sign out.
  const jar = new Jar();
  expect((await app.signIn(jar)).status).toBe(302);
  expect(jar.get(SESSION_COOKIE)).toBeDefined();
  const started = await app.postJson(jar, "two-factor/enroll");
  expect(started.status).toBe(200);
  const { secret } = (await started.json()) as { secret: string };
  const enrolCode = await totpCode(secret, totpStep());
  expect((await app.postJson(jar, "two-factor/confirm", { code: enrolCode })).status).toBe(200);
  await app.signOut(jar);
  expect(jar.get(SESSION_COOKIE)).toBeUndefined();

  // The password again: the challenge, and nothing else.
  const challenged = await app.signIn(jar);
  expect(challenged.status).toBe(302);
  expect(challenged.headers.get("location")).toBe(
    "http://localhost:3000/api/auth/two-factor/challenge",
  );
  expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  expect([...jar.cookies.keys()].some((name) => name.includes("challenge"))).toBe(true);

  const pending = await readers(app.config, jar);
  expect(pending.solid).toBeNull();
  expect(pending.core).toBeNull();
  expect(pending.required).toBeInstanceOf(Response);
  expect((pending.required as Response).status).toBe(302);
  expect((pending.required as Response).headers.get("location")).toBe("/");
  expect(pending.middleware?.status).toBe(302);
  expect(pending.middleware?.headers.get("location")).toBe("/");

  // Nor does an update of the session through the route issue one.
  const update = await app.postJson(jar, "session", { data: {} });
  expect(update.headers.getSetCookie().join("\n")).not.toContain(SESSION_COOKIE);
  expect(await update.json()).toBeNull();
  expect(jar.get(SESSION_COOKIE)).toBeUndefined();

  // The next step's code completes the challenge (the enrolment's step is spent).
  const done = await app.postJson(jar, "two-factor/challenge", {
    code: await totpCode(secret, totpStep() + 1),
  });
  expect(done.status).toBe(302);
  expect(jar.get(SESSION_COOKIE)).toBeDefined();

  const signedIn = await readers(app.config, jar);
  expect(signedIn.solid?.user?.email).toBe(EMAIL);
  expect(signedIn.core?.user?.email).toBe(EMAIL);
  expect(signedIn.required).toMatchObject({ user: { email: EMAIL } });
  expect(signedIn.middleware).toBeUndefined();
});
