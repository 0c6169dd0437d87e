/**
 * Which sign-outs also end the session at the OpenID provider, and with which ID token hint, rule
 * by rule: `federated` in the body or the provider's `federatedLogout`, which provider (named, or
 * the only OIDC one), a provider without an end-session endpoint, no session, and the hint taken
 * from the adapter's account, the JWT's provider tokens or its `id_token` claim. The provider's
 * discovery is served by a stub `fetch`; sessions are sealed straight into the cookie.
 */
import { randomUUID } from "node:crypto";
import { customFetch, skipCSRFCheck } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import Credentials from "@gatehousejs/core/providers/credentials";
import GitHub from "@gatehousejs/core/providers/github";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

const SESSION_COOKIE = "authjs.session-token";

/** An OpenID provider whose discovery document names `end_session_endpoint` (or not). */
function idp(id: string, options: { endSession?: boolean; federatedLogout?: boolean } = {}) {
  const issuer = `https://idp.example/${id}-${randomUUID()}`;
  const document: Record<string, string> = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
  };
  if (options.endSession !== false) document.end_session_endpoint = `${issuer}/logout`;
  const discovery = (async () =>
    new Response(JSON.stringify(document), {
      headers: { "content-type": "application/json" },
    })) as typeof fetch;
  return {
    endpoint: `${issuer}/logout`,
    provider: OIDC({
      id,
      issuer,
      clientId: `client-of-${id}`,
      clientSecret: "secret",
      [customFetch]: discovery,
      ...(options.federatedLogout ? { federatedLogout: true } : {}),
    } as Parameters<typeof OIDC>[0]),
  };
}

function jwtConfig(providers: AuthConfig["providers"]): AuthConfig {
  return { secret: SECRET, trustHost: true, logger: recordingLogger(), providers };
}

/** A browser holding a JWT session with these claims. */
async function withJwt(claims: Record<string, unknown>): Promise<Jar> {
  const jar = new Jar();
  jar.cookies.set(
    SESSION_COOKIE,
    await encode({
      token: { sub: "u1", sid: "s1", ...claims },
      secret: SECRET,
      salt: SESSION_COOKIE,
    }),
  );
  return jar;
}

/** Signs out; returns where the browser is sent. */
async function signOut(config: AuthConfig, jar: Jar, form: Record<string, string> = {}) {
  const token = await csrfToken(config, jar);
  const response = await send(config, jar, "/auth/signout", {
    form: { csrfToken: token, callbackUrl: `${ORIGIN}/bye`, ...form },
  });
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location") ?? "");
}

function expectProviderLogout(target: URL, endpoint: string, clientId: string, hint?: string) {
  expect(`${target.origin}${target.pathname}`).toBe(endpoint);
  expect(target.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/bye`);
  expect(target.searchParams.get("client_id")).toBe(clientId);
  expect(target.searchParams.get("id_token_hint")).toBe(hint ?? null);
}

describe("whether the provider's session ends too", () => {
  test("federated=true ends it; nothing asked, or federated=false, ends only the local session", async () => {
    const a = idp("a");
    const config = jwtConfig([a.provider]);
    const asked = await signOut(config, await withJwt({ id_token: "tok" }), { federated: "true" });
    expectProviderLogout(asked, a.endpoint, "client-of-a", "tok");
    expect((await signOut(config, await withJwt({}))).href).toBe(`${ORIGIN}/bye`);
    expect((await signOut(config, await withJwt({}), { federated: "false" })).href).toBe(
      `${ORIGIN}/bye`,
    );
  });

  test("federatedLogout makes it the default, which federated=false still turns off", async () => {
    const a = idp("a", { federatedLogout: true });
    const config = jwtConfig([a.provider]);
    expectProviderLogout(await signOut(config, await withJwt({})), a.endpoint, "client-of-a");
    expect((await signOut(config, await withJwt({}), { federated: "false" })).href).toBe(
      `${ORIGIN}/bye`,
    );
  });

  test("with two OIDC providers the body must name one; a named non-OIDC or unknown provider ends only the local session", async () => {
    const a = idp("a");
    const b = idp("b");
    const config = jwtConfig([a.provider, b.provider]);
    expect((await signOut(config, await withJwt({}), { federated: "true" })).href).toBe(
      `${ORIGIN}/bye`,
    );
    const named = await signOut(config, await withJwt({}), { federated: "true", provider: "b" });
    expectProviderLogout(named, b.endpoint, "client-of-b");
    expect(
      (await signOut(config, await withJwt({}), { federated: "true", provider: "nope" })).href,
    ).toBe(`${ORIGIN}/bye`);
  });

  test("a provider without end_session_endpoint, or a browser without a session, ends only the local session", async () => {
    const plain = idp("plain", { endSession: false });
    const config = jwtConfig([plain.provider]);
    expect((await signOut(config, await withJwt({}), { federated: "true" })).href).toBe(
      `${ORIGIN}/bye`,
    );
    const a = idp("a");
    expect((await signOut(jwtConfig([a.provider]), new Jar(), { federated: "true" })).href).toBe(
      `${ORIGIN}/bye`,
    );
  });
});

describe("the ID token hint", () => {
  test("from the JWT's provider tokens when they are this provider's; else from its id_token claim; else none", async () => {
    const a = idp("a");
    const config = jwtConfig([a.provider]);
    const own = await withJwt({
      gatehouse_tokens: { provider: "a", id_token: "from-set" },
      id_token: "claim",
    });
    expectProviderLogout(
      await signOut(config, own, { federated: "true" }),
      a.endpoint,
      "client-of-a",
      "from-set",
    );
    const other = await withJwt({
      gatehouse_tokens: { provider: "z", id_token: "from-set" },
      id_token: "claim",
    });
    expectProviderLogout(
      await signOut(config, other, { federated: "true" }),
      a.endpoint,
      "client-of-a",
      "claim",
    );
    const notText = await withJwt({
      gatehouse_tokens: { provider: "a", id_token: 7 },
      id_token: 8,
    });
    expectProviderLogout(
      await signOut(config, notText, { federated: "true" }),
      a.endpoint,
      "client-of-a",
    );
  });

  test("from the adapter's account for this provider, with database sessions", async () => {
    const a = idp("a");
    const adapter = MemoryAdapter();
    await adapter.createUser({ id: "u1", email: "u@example.com", emailVerified: null });
    await adapter.linkAccount({
      userId: "u1",
      type: "oidc",
      provider: "other",
      providerAccountId: "x",
      id_token: "other-token",
    });
    await adapter.linkAccount({
      userId: "u1",
      type: "oidc",
      provider: "a",
      providerAccountId: "y",
      id_token: "account-token",
    });
    await adapter.createSession({
      sessionToken: "st",
      userId: "u1",
      expires: new Date(Date.now() + 3_600_000),
    });
    const config: AuthConfig = {
      ...jwtConfig([a.provider]),
      adapter,
      session: { strategy: "database" },
    };
    const jar = new Jar();
    jar.cookies.set(SESSION_COOKIE, "st");
    expectProviderLogout(
      await signOut(config, jar, { federated: "true" }),
      a.endpoint,
      "client-of-a",
      "account-token",
    );
    expect(await adapter.getSessionAndUser("st")).toBeNull();
  });
});

/** The errors logged so far under `config`. */
function loggedErrors(config: AuthConfig): Error[] {
  return (config.logger as ReturnType<typeof recordingLogger>).error.mock.calls.map(
    (call) => call[0] as Error,
  );
}

describe("the request's own words", () => {
  test("a JSON body's federated true and false are read like the form's", async () => {
    const a = idp("a");
    const asked = jwtConfig([a.provider]);
    const jar = await withJwt({});
    let token = await csrfToken(asked, jar);
    const on = await send(asked, jar, "/auth/signout", {
      json: { csrfToken: token, callbackUrl: `${ORIGIN}/bye`, federated: true },
    });
    expectProviderLogout(new URL(on.headers.get("location") ?? ""), a.endpoint, "client-of-a");

    const b = idp("b", { federatedLogout: true });
    const byDefault = jwtConfig([b.provider]);
    const other = await withJwt({});
    token = await csrfToken(byDefault, other);
    const off = await send(byDefault, other, "/auth/signout", {
      json: { csrfToken: token, callbackUrl: `${ORIGIN}/bye`, federated: false },
    });
    expect(off.headers.get("location")).toBe(`${ORIGIN}/bye`);
    expect(loggedErrors(asked)).toEqual([]);
    expect(loggedErrors(byDefault)).toEqual([]);
  });

  test("a sign-out without a body (the app checks CSRF itself) follows the provider's federatedLogout", async () => {
    const a = idp("a", { federatedLogout: true });
    const config: AuthConfig = { ...jwtConfig([a.provider]), skipCSRFCheck };
    const response = await send(config, await withJwt({}), "/auth/signout", { method: "POST" });
    expect(response.status).toBe(302);
    const target = new URL(response.headers.get("location") ?? "");
    expect(`${target.origin}${target.pathname}`).toBe(a.endpoint);
    expect(loggedErrors(config)).toEqual([]);
  });
});

describe("which provider, among providers of every kind", () => {
  test("the one OIDC provider is the one beside OAuth and credentials providers; naming an OAuth one ends only the local session", async () => {
    const a = idp("a");
    const config = jwtConfig([
      Credentials({ credentials: {}, authorize: () => null }),
      GitHub({ clientId: "gh-id", clientSecret: "gh-secret" }),
      a.provider,
    ]);
    expectProviderLogout(
      await signOut(config, await withJwt({}), { federated: "true" }),
      a.endpoint,
      "client-of-a",
    );
    const named = await signOut(config, await withJwt({}), {
      federated: "true",
      provider: "github",
    });
    expect(named.href).toBe(`${ORIGIN}/bye`);
    expect(loggedErrors(config)).toEqual([]);
  });

  test("a browser without a session ends nothing at the provider, and nothing is logged", async () => {
    const a = idp("a");
    const config = jwtConfig([a.provider]);
    expect((await signOut(config, new Jar(), { federated: "true" })).href).toBe(`${ORIGIN}/bye`);
    expect(loggedErrors(config)).toEqual([]);
  });
});

describe("the ID token hint, when there is none", () => {
  test("a database session whose user has no account at this provider, or one without an ID token: no hint", async () => {
    const a = idp("a");
    const adapter = MemoryAdapter();
    await adapter.createUser({ id: "u1", email: "u@example.com", emailVerified: null });
    await adapter.createUser({ id: "u2", email: "v@example.com", emailVerified: null });
    await adapter.linkAccount({
      userId: "u1",
      type: "oidc",
      provider: "other",
      providerAccountId: "x",
      id_token: "other-token",
    });
    await adapter.linkAccount({
      userId: "u2",
      type: "oidc",
      provider: "a",
      providerAccountId: "y",
    });
    const config: AuthConfig = {
      ...jwtConfig([a.provider]),
      adapter,
      session: { strategy: "database" },
    };
    for (const userId of ["u1", "u2"]) {
      const sessionToken = `st-${userId}`;
      await adapter.createSession({
        sessionToken,
        userId,
        expires: new Date(Date.now() + 3_600_000),
      });
      const jar = new Jar();
      jar.cookies.set(SESSION_COOKIE, sessionToken);
      expectProviderLogout(
        await signOut(config, jar, { federated: "true" }),
        a.endpoint,
        "client-of-a",
      );
      expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
    }
    expect(loggedErrors(config)).toEqual([]);
  });
});

describe("when the provider's side goes wrong, the local sign-out still happens", () => {
  test("a callbackUrl off this site, let through by the app's redirect callback, is refused for the provider with a log line that says why", async () => {
    const a = idp("a");
    const config: AuthConfig = {
      ...jwtConfig([a.provider]),
      callbacks: { redirect: ({ url }) => url },
    };
    const jar = await withJwt({});
    const token = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", {
      form: { csrfToken: token, callbackUrl: "https://elsewhere.example/", federated: "true" },
    });
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.origin).toBe(ORIGIN);
    expect(location.searchParams.get("error")).toBeTruthy();
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(loggedErrors(config)).toEqual([]);
    // A client's mistake: one warning, whose error names the rule that refused it.
    const warnings = (config.logger as ReturnType<typeof recordingLogger>).warn.mock.calls;
    expect(warnings).toHaveLength(1);
    const [code, refused] = warnings[0] as [string, Error];
    expect(code).toBe("client-error");
    expect(refused.name).toBe("InvalidCallbackUrl");
    expect(refused.message).toMatch(/post_logout_redirect_uri/);
  });

  test("a provider whose discovery never answers: the local sign-out goes on at the deadline, with one log line naming the provider's side", async () => {
    const issuer = `https://idp.example/hung-${randomUUID()}`;
    const hung = OIDC({
      id: "hung",
      issuer,
      clientId: "client-of-hung",
      clientSecret: "secret",
      [customFetch]: (() => new Promise<never>(() => {})) as typeof fetch,
    } as Parameters<typeof OIDC>[0]);
    const config = jwtConfig([hung]);
    const jar = await withJwt({});
    const target = await signOut(config, jar, { federated: "true" });
    expect(target.href).toBe(`${ORIGIN}/bye`);
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    const [logged, ...more] = loggedErrors(config);
    expect(more).toEqual([]);
    expect(logged?.message).toMatch(/federated sign-out/);
  });
});
