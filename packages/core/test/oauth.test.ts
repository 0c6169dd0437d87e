/**
 * OAuth 2 and OpenID Connect sign-in through `Auth()` against a real OpenID provider
 * (`oidc-provider`): discovery, client authentication methods, checks, form_post, plain OAuth
 * with userinfo, what ends up in the session and the adapter, callbacks, events and pages.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { decode } from "@gatehousejs/core/jwt";
import OIDC, { type OIDCOptions } from "@gatehousejs/core/providers/oidc";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, setCookies } from "./helpers.js";
import {
  atProvider,
  beginSignIn,
  CHECK_COOKIES,
  deliver,
  expectCleared,
  NONCE_COOKIE,
  PKCE_COOKIE,
  postSignIn,
  SESSION_COOKIE,
  STATE_COOKIE,
  sessionOf,
  signInThrough,
} from "./support/oauth-flow.js";
import { type OidcClientName, type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

const USER_1 = {
  name: "User user-1",
  email: "user-1@example.com",
  image: "https://img.example/user-1.png",
};

/** An OIDC provider (id "oidc") for one of the registered clients. */
function oidc(client: OidcClientName, options: OIDCOptions = {}): OAuthConfig {
  const { clientId, clientSecret, tokenEndpointAuthMethod } = op.clients[client];
  return OIDC({
    issuer: op.issuer,
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    client: { token_endpoint_auth_method: tokenEndpointAuthMethod },
    ...options,
  });
}

function setup(provider: OAuthConfig, overrides: Partial<AuthConfig> = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [provider],
    ...overrides,
  };
  return { config, logger };
}

/** POST /signin/oidc and return the raw response (cookies and all). */
async function beginSignInRaw(config: AuthConfig, jar = new Jar()) {
  const response = await postSignIn(config, jar, "oidc");
  expect(response.status).toBe(302);
  return response;
}

describe("OpenID Connect sign-in with discovery", () => {
  const cases = (["basic", "post", "public"] as const).flatMap((client) => [
    { client, checks: ["pkce", "state", "nonce"] as const },
    { client, checks: undefined },
  ]);

  test.each(cases)(
    "$client client, checks $checks: signs in, then clears the check cookies",
    async ({ client, checks }) => {
      const { config, logger } = setup(oidc(client, checks ? { checks: [...checks] } : {}));
      const jar = new Jar();
      const url = await beginSignIn(config, jar, "oidc");

      expect(url.origin + url.pathname).toBe(op.authorizationEndpoint);
      const params = url.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get("client_id")).toBe(op.clients[client].clientId);
      expect(params.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/oidc`);
      expect(params.get("scope")).toBe("openid profile email");
      expect(params.get("code_challenge")).toMatch(/^[\w-]{43}$/);
      expect(params.get("code_challenge_method")).toBe("S256");
      const expected: readonly string[] = checks ?? ["pkce"];
      expect(params.has("state")).toBe(expected.includes("state"));
      expect(params.has("nonce")).toBe(expected.includes("nonce"));
      const issued = [
        PKCE_COOKIE,
        ...(expected.includes("state") ? [STATE_COOKIE] : []),
        ...(expected.includes("nonce") ? [NONCE_COOKIE] : []),
      ];
      expect([...jar.cookies.keys()].filter((n) => CHECK_COOKIES.includes(n)).sort()).toEqual(
        issued.sort(),
      );

      const done = await deliver(config, jar, await atProvider(url));
      expect(done.status).toBe(302);
      expect(done.headers.get("location")).toBe(ORIGIN);
      expectCleared(done, issued);
      expect(setCookies(done).get(SESSION_COOKIE)?.value).toBeTruthy();
      expect(await sessionOf(config, jar)).toMatchObject({ user: USER_1 });
      expect(logger.error).not.toHaveBeenCalled();
    },
  );

  test("check cookies are short-lived, HttpOnly, SameSite=Lax and encrypted", async () => {
    const { config } = setup(oidc("basic", { checks: ["pkce", "state", "nonce"] }));
    const response = await beginSignInRaw(config);
    const nonce = new URL(response.headers.get("location")!).searchParams.get("nonce")!;
    for (const name of CHECK_COOKIES) {
      const cookie = setCookies(response).get(name);
      expect(cookie?.raw, name).toMatch(/Max-Age=900; Path=\/; .*HttpOnly; SameSite=Lax/);
      // Sealed (a JWE): the values are not readable from the cookies.
      expect(cookie!.value.split(".")).toHaveLength(5);
      expect(cookie!.value).not.toContain(nonce);
    }
  });

  test("form_post: the callback arrives as a POST, and state and nonce cookies are SameSite=None; Secure", async () => {
    const { config, logger } = setup(
      oidc("formpost", {
        checks: ["pkce", "state", "nonce"],
        authorization: { params: { response_mode: "form_post" } },
      }),
    );
    const jar = new Jar();
    const response = await beginSignInRaw(config, jar);
    const url = new URL(response.headers.get("location")!);
    expect(url.searchParams.get("response_mode")).toBe("form_post");
    const cookies = setCookies(response);
    for (const name of [STATE_COOKIE, NONCE_COOKIE]) {
      expect(cookies.get(name)?.raw).toMatch(/SameSite=None/);
      expect(cookies.get(name)?.raw).toMatch(/Secure/);
    }
    const answer = await atProvider(url);
    expect(answer.form).toMatchObject({
      code: expect.any(String),
      state: url.searchParams.get("state"),
    });
    // Jar does not enforce Secure, so the cookies reach the plain-http callback here.
    const done = await deliver(config, jar, answer);
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect(setCookies(done).get(SESSION_COOKIE)?.value).toBeTruthy();
    expect(await sessionOf(config, jar)).toMatchObject({ user: USER_1 });
    expect(logger.error).not.toHaveBeenCalled();
  });

  // Regression (was a library bug, now fixed).
  test("form_post: a browser's cross-site POST (SameSite=None cookies only) completes the sign-in", async () => {
    const { config } = setup(
      oidc("formpost", { authorization: { params: { response_mode: "form_post" } } }),
    );
    const jar = new Jar();
    const response = await beginSignInRaw(config, jar);
    const crossSite = new Jar();
    for (const [name, { value, raw }] of setCookies(response)) {
      if (/SameSite=None/.test(raw)) crossSite.cookies.set(name, value);
    }
    const answer = await atProvider(new URL(response.headers.get("location")!));
    const done = await deliver(config, crossSite, answer);
    expect(done.headers.get("location")).toBe(ORIGIN);
  });

  test("query parameters of the sign-in request are forwarded, except the reserved ones", async () => {
    const { config } = setup(oidc("basic", { checks: ["pkce", "state"] }));
    const jar = new Jar();
    const url = await beginSignIn(config, jar, "oidc", {
      query: {
        login_hint: "user-7",
        prompt: "login",
        client_id: "evil",
        redirect_uri: "https://evil.example/cb",
        state: "evil-state",
        code_challenge: "evil-challenge",
      },
    });
    const params = url.searchParams;
    expect(params.get("login_hint")).toBe("user-7");
    expect(params.get("prompt")).toBe("login");
    expect(params.get("client_id")).toBe("basic");
    expect(params.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/oidc`);
    expect(params.get("state")).not.toBe("evil-state");
    expect(params.get("code_challenge")).not.toBe("evil-challenge");
    expect(params.getAll("client_id")).toHaveLength(1);

    await deliver(config, jar, await atProvider(url));
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-7@example.com");
  });
});

describe("plain OAuth 2 with userinfo", () => {
  function plain(options: Partial<OAuthConfig> = {}): OAuthConfig {
    return {
      id: "oauth",
      name: "Plain OAuth",
      type: "oauth",
      authorization: { url: op.authorizationEndpoint, params: { scope: "openid profile email" } },
      token: op.tokenEndpoint,
      userinfo: op.userinfoEndpoint,
      clientId: op.clients.basic.clientId,
      clientSecret: op.clients.basic.clientSecret,
      ...options,
    };
  }

  test("the profile comes from the userinfo endpoint, fetched with the access token", async () => {
    const calls: { url: string; authorization: string | null }[] = [];
    const spy: typeof fetch = async (input, init) => {
      calls.push({
        url: String(input instanceof Request ? input.url : input),
        authorization: new Headers(init?.headers).get("authorization"),
      });
      return fetch(input, init);
    };
    // The issuer lets the ID token that comes with scope=openid be checked; see the next test.
    const { config, logger } = setup(
      plain({
        issuer: op.issuer,
        wellKnown: `${op.issuer}/.well-known/openid-configuration`,
        [customFetch]: spy,
      }),
    );
    const jar = new Jar();
    const done = await signInThrough(config, jar, "oauth");
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect(logger.error).not.toHaveBeenCalled();
    const userinfo = calls.filter((c) => c.url === op.userinfoEndpoint);
    expect(userinfo).toHaveLength(1);
    expect(userinfo[0]!.authorization).toMatch(/^Bearer \S+$/);
    expect(await sessionOf(config, jar)).toMatchObject({ user: USER_1 });
  });

  // Regression (was a library bug, now fixed).
  test("without an issuer, an id_token in the token response does not break the sign-in", async () => {
    const { config, logger } = setup(plain());
    const done = await signInThrough(config, new Jar(), "oauth");
    expect(logger.error).not.toHaveBeenCalled();
    expect(done.headers.get("location")).toBe(ORIGIN);
  });
});

describe("accounts, users and sessions", () => {
  test("the linked account has expires_at = now + expires_in and a lowercase token_type", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(oidc("basic"), { adapter });
    const before = Math.floor(Date.now() / 1000);
    await signInThrough(config, new Jar(), "oidc");
    const after = Math.floor(Date.now() / 1000);
    const account = adapter.rows.account({ provider: "oidc", providerAccountId: "user-1" });
    expect(account).toMatchObject({
      type: "oidc",
      token_type: "bearer",
      scope: "openid profile email",
      access_token: expect.any(String),
      id_token: expect.any(String),
    });
    expect(account!.expires_at).toBeGreaterThanOrEqual(before + 300);
    expect(account!.expires_at).toBeLessThanOrEqual(after + 300);
    expect(Object.keys(account!).sort()).toEqual(
      ["access_token", "expires_at", "id_token", "provider", "providerAccountId", "scope"]
        .concat(["token_type", "type", "userId"])
        .sort(),
    );
    // The provider said email_verified: true, so the address counts as proven.
    expect(adapter.rows.user(account!.userId)).toMatchObject({
      ...USER_1,
      emailVerified: expect.any(Date),
    });
  });

  test("profile() maps the claims and account() chooses what is stored", async () => {
    const adapter = MemoryAdapter();
    const profile = vi.fn((claims: Record<string, unknown>, tokens: Record<string, unknown>) => ({
      id: `acct-${String(claims.sub)}`,
      name: `Custom ${String(claims.name)}`,
      email: String(claims.email).toUpperCase(),
      image: null,
      hasToken: typeof tokens.access_token === "string",
    }));
    const account = vi.fn((tokens: Record<string, unknown>) => ({
      access_token: tokens.access_token,
    }));
    const { config } = setup(oidc("basic", { profile, account }), { adapter });
    const jar = new Jar();
    await signInThrough(config, jar, "oidc");
    expect(profile).toHaveBeenCalledOnce();
    expect(profile.mock.results[0]!.value.hasToken).toBe(true);
    const row = adapter.rows.account({ provider: "oidc", providerAccountId: "acct-user-1" });
    expect(Object.keys(row!).sort()).toEqual(
      ["access_token", "provider", "providerAccountId", "type", "userId"].sort(),
    );
    // Emails are stored lowercased.
    expect(await sessionOf(config, jar)).toMatchObject({
      user: { name: "Custom User user-1", email: "user-1@example.com", image: null },
    });
  });

  test("jwt gets trigger signUp on the first sign-in and signIn on the next; events fire", async () => {
    const adapter = MemoryAdapter();
    const jwt = vi.fn(({ token }: { token: Record<string, unknown> }) => token);
    const events = { signIn: vi.fn(), createUser: vi.fn(), linkAccount: vi.fn() };
    const { config } = setup(oidc("basic"), {
      adapter,
      session: { strategy: "jwt" },
      callbacks: { jwt },
      events,
    });
    await signInThrough(config, new Jar(), "oidc");
    const first = jwt.mock.calls.at(-1)![0] as Record<string, unknown>;
    expect(first).toMatchObject({ trigger: "signUp", isNewUser: true });
    expect(first.account).toMatchObject({ provider: "oidc", providerAccountId: "user-1" });
    expect(first.profile).toMatchObject({ sub: "user-1", iss: op.issuer });
    const userId = (first.user as { id: string }).id;
    expect(adapter.rows.user(userId)).not.toBeNull();
    expect(events.createUser).toHaveBeenCalledOnce();
    expect(events.linkAccount).toHaveBeenCalledOnce();
    expect(events.linkAccount.mock.calls[0]![0]).toMatchObject({
      user: { id: userId },
      account: { provider: "oidc", providerAccountId: "user-1", userId },
    });
    expect(events.signIn).toHaveBeenCalledWith(
      expect.objectContaining({ isNewUser: true, user: expect.objectContaining({ id: userId }) }),
    );

    await signInThrough(config, new Jar(), "oidc");
    const second = jwt.mock.calls.at(-1)![0] as Record<string, unknown>;
    expect(second).toMatchObject({ trigger: "signIn", isNewUser: false, user: { id: userId } });
    expect(events.createUser).toHaveBeenCalledOnce();
    expect(events.linkAccount).toHaveBeenCalledOnce();
    expect(events.signIn).toHaveBeenCalledTimes(2);
    expect(events.signIn.mock.calls[1]![0]).toMatchObject({ isNewUser: false });
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1, sessions: 0 });
  });

  test("pages.newUser receives a new user only, with the callbackUrl", async () => {
    const { config } = setup(oidc("basic"), {
      adapter: MemoryAdapter(),
      pages: { newUser: "/welcome" },
    });
    const form = { callbackUrl: "/dashboard?tab=1" };
    const first = await signInThrough(config, new Jar(), "oidc", { form });
    const target = `${ORIGIN}/dashboard?tab=1`;
    expect(first.headers.get("location")).toBe(
      `${ORIGIN}/welcome?callbackUrl=${encodeURIComponent(target)}`,
    );
    const second = await signInThrough(config, new Jar(), "oidc", { form });
    expect(second.headers.get("location")).toBe(target);
  });

  test("JWT sessions without an adapter: token.sub is <provider id>:<account id>, every time", async () => {
    const { config } = setup(oidc("basic"));
    const subs: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const done = await signInThrough(config, new Jar(), "oidc");
      const cookie = setCookies(done).get(SESSION_COOKIE)!.value;
      const token = await decode({ token: cookie, secret: SECRET, salt: SESSION_COOKIE });
      subs.push(token?.sub);
      expect(token).toMatchObject({
        name: USER_1.name,
        email: USER_1.email,
        picture: USER_1.image,
      });
    }
    expect(subs).toEqual(["oidc:user-1", "oidc:user-1"]);
  });

  test("database sessions: the callback stores a session row and sets its token", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(oidc("basic"), { adapter });
    const jar = new Jar();
    const done = await signInThrough(config, jar, "oidc");
    const token = setCookies(done).get(SESSION_COOKIE)!.value;
    const row = adapter.rows.session(token);
    const account = adapter.rows.account({ provider: "oidc", providerAccountId: "user-1" });
    expect(row).toMatchObject({ sessionToken: token, userId: account!.userId });
    expect(row!.expires.getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);
    expect(await sessionOf(config, jar)).toMatchObject({ user: USER_1 });
  });

  test("the callbackUrl posted at sign-in is where the callback finally redirects", async () => {
    const { config } = setup(oidc("public"));
    const done = await signInThrough(config, new Jar(), "oidc", {
      form: { callbackUrl: `${ORIGIN}/account/settings` },
    });
    expect(done.headers.get("location")).toBe(`${ORIGIN}/account/settings`);
  });
});
