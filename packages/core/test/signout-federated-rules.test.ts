/**
 * Which sign-outs also end the session at the OpenID provider, and with which ID token hint, rule
 * by rule: `federated` in the body or the provider's `federatedLogout`, which provider (named, or
 * the only OIDC one), a provider without an end-session endpoint, no session, and the hint taken
 * from the adapter's account, the JWT's provider tokens or its `id_token` claim. The provider's
 * discovery is served by a stub `fetch`; sessions are sealed straight into the cookie.
 */
import { randomUUID } from "node:crypto";
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
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
