/**
 * The TikTok provider through `Auth()` against a TikTok-shaped server on 127.0.0.1 that enforces
 * what TikTok's API requires (client_key, form-encoded token request, fields, Bearer token).
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { decode } from "@gatehousejs/core/jwt";
import TikTok, {
  type TikTokOptions,
  type TikTokProfile,
  type TikTokUser,
} from "@gatehousejs/core/providers/tiktok";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, setCookies } from "../helpers.js";
import {
  beginSignIn,
  deliver,
  expectNoSessionCookie,
  expectOneError,
  SESSION_COOKIE,
  sessionOf,
  signInError,
} from "../support/oauth-flow.js";
import { type RecordedRequest, startTikTok, type TikTokServer } from "../support/tiktok-server.js";

let tt: TikTokServer;
const realFetch = globalThis.fetch;
beforeAll(async () => {
  tt = await startTikTok();
});
afterAll(() => tt.close());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  tt.setUser({});
  tt.setProfileError(null);
  tt.requests.length = 0;
});

type Endpoint = { url: string; params: Record<string, unknown> };

/**
 * The provider as `TikTok(options)` builds it, with only the three URLs moved to the test
 * server: every default (client_key, scope, fields, client auth, fetch) stays under test.
 */
function pointedAtServer(options: TikTokOptions = {}): OAuthConfig {
  const defaults = TikTok(options);
  return TikTok({
    ...options,
    authorization: { ...(defaults.authorization as Endpoint), url: tt.authorizeUrl },
    token: tt.tokenUrl,
    userinfo: { ...(defaults.userinfo as Endpoint), url: tt.userinfoUrl },
    // TikTok's profile type does not fit AuthConfig["providers"] (reported library bug).
  }) as unknown as OAuthConfig;
}

const credentials = () => ({ clientId: tt.clientKey, clientSecret: tt.clientSecret });

function setup(provider: Provider, overrides: Partial<AuthConfig> = {}) {
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

/** Sends TikTok's real hosts to the test server: for the provider's built-in URLs. */
function routeTikTokHostsToServer() {
  vi.stubGlobal("fetch", (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.origin !== "https://open.tiktokapis.com") return realFetch(input, init);
    return realFetch(new URL(url.pathname + url.search, tt.baseUrl), init);
  });
}

/** The sign-in: our redirect to TikTok, TikTok's redirect back, our callback. */
async function signIn(config: AuthConfig, jar = new Jar(), basePath = "/auth") {
  const url = await beginSignIn(config, jar, "tiktok", { basePath });
  const atServer = new URL(url.pathname + url.search, tt.baseUrl);
  const answer = await realFetch(atServer, { redirect: "manual" });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  const response = await deliver(config, jar, { url: back });
  return { url, response, jar };
}

const tokenRequests = () => tt.requests.filter((r) => r.path === "/v2/oauth/token/");
const userinfoRequests = () => tt.requests.filter((r) => r.path === "/v2/user/info/");

function expectNoUndefined(requests: RecordedRequest[]) {
  for (const r of requests) {
    expect(JSON.stringify(r.query)).not.toContain("undefined");
    expect(r.body).not.toContain("undefined");
  }
}

describe("the TikTok flow", () => {
  test("authorize with client_key and scope, a form-encoded token request, a Bearer userinfo call", async () => {
    const { config, logger } = setup(pointedAtServer(credentials()));
    const { url, response, jar } = await signIn(config);

    const params = url.searchParams;
    expect(params.get("client_key")).toBe(tt.clientKey);
    expect(params.get("client_id")).toBe(tt.clientKey);
    expect(params.get("scope")).toBe("user.info.profile");
    expect(params.get("response_type")).toBe("code");
    expect(params.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/tiktok`);
    expect(params.get("code_challenge_method")).toBe("S256");

    const [token] = tokenRequests();
    expect(tokenRequests()).toHaveLength(1);
    expect(token!.method).toBe("POST");
    expect(token!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(token!.headers.authorization).toBeUndefined();
    const form = Object.fromEntries(new URLSearchParams(token!.body));
    expect(form).toMatchObject({
      client_key: tt.clientKey,
      client_id: tt.clientKey,
      client_secret: tt.clientSecret,
      grant_type: "authorization_code",
      redirect_uri: `${ORIGIN}/auth/callback/tiktok`,
      code_verifier: expect.any(String),
    });

    const [info] = userinfoRequests();
    expect(info!.method).toBe("GET");
    expect(info!.headers.authorization).toMatch(/^Bearer act\./);
    expect(info!.query.fields).toBe("open_id,avatar_url,display_name,username");
    expectNoUndefined(tt.requests);

    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await sessionOf(config, jar)).toMatchObject({
      user: { name: "TT User", email: "ttuser", image: "https://p16.example/a.jpg" },
    });
    const cookie = setCookies(response).get(SESSION_COOKIE)!.value;
    const jwt = await decode({ token: cookie, secret: SECRET, salt: SESSION_COOKIE });
    expect(jwt?.sub).toBe("tiktok:tt-open-1");
    expect(logger.error).not.toHaveBeenCalled();
  });

  test("scope and fields are extendable, and the extra fields reach the profile", async () => {
    const jwt = vi.fn(({ token }: { token: Record<string, unknown> }) => token);
    const { config } = setup(
      pointedAtServer({
        ...credentials(),
        scope: "user.info.profile,user.info.stats",
        fields: ["avatar_url", "display_name", "username", "follower_count", "bio_description"],
      }),
      { callbacks: { jwt } },
    );
    const { url, response } = await signIn(config);
    expect(url.searchParams.get("scope")).toBe("user.info.profile,user.info.stats");
    expect(userinfoRequests()[0]!.query.fields).toBe(
      "open_id,avatar_url,display_name,username,follower_count,bio_description",
    );
    expect(response.headers.get("location")).toBe(ORIGIN);
    const profile = jwt.mock.calls[0]![0] as unknown as { profile: TikTokProfile };
    expect(profile.profile.data.user).toMatchObject({
      follower_count: 12,
      bio_description: "Dancing in tests",
    });
  });

  test("the account carries lowercase token_type and expires_at", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(pointedAtServer(credentials()), { adapter });
    const before = Math.floor(Date.now() / 1000);
    await signIn(config);
    const account = adapter.rows.account({ provider: "tiktok", providerAccountId: "tt-open-1" });
    expect(account).toMatchObject({
      type: "oauth",
      token_type: "bearer",
      refresh_token: expect.any(String),
    });
    expect(account!.expires_at).toBeGreaterThanOrEqual(before + 86400);
    expect(account!.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86400);
  });

  // Regression (was a library bug, now fixed).
  test("callbacks see TikTok's extra token fields; the stored account does not", async () => {
    const adapter = MemoryAdapter();
    const jwt = vi.fn(
      (params: { token: Record<string, unknown>; account?: unknown }) => params.token,
    );
    const { config } = setup(pointedAtServer(credentials()), {
      adapter,
      session: { strategy: "jwt" },
      callbacks: { jwt },
    });
    await signIn(config);
    expect(jwt.mock.calls[0]![0].account).toMatchObject({ open_id: "tt-open-1" });
    const account = adapter.rows.account({ provider: "tiktok", providerAccountId: "tt-open-1" });
    expect(account).not.toHaveProperty("open_id");
  });
});

describe("profile mapping", () => {
  test.each([
    { name: "email from username", user: {}, fields: undefined, email: "ttuser" },
    {
      name: "email from email, lowercased",
      user: { email: "TT@Example.com" },
      fields: ["avatar_url", "display_name", "username", "email"],
      email: "tt@example.com",
    },
    {
      name: "no email without username",
      user: { username: undefined },
      fields: undefined,
      email: null,
    },
  ])("$name", async ({ user, fields, email }) => {
    tt.setUser(user);
    const { config } = setup(pointedAtServer({ ...credentials(), ...(fields ? { fields } : {}) }));
    const { jar } = await signIn(config);
    expect(await sessionOf(config, jar)).toMatchObject({
      user: { name: "TT User", image: "https://p16.example/a.jpg", email },
    });
  });

  test("the typed TikTokProfile covers every field, and profile() maps it", async () => {
    const user: Required<TikTokUser> = {
      open_id: "o",
      union_id: "u",
      username: "name",
      display_name: "Display",
      avatar_url: "https://p16.example/x.jpg",
      avatar_url_100: "https://p16.example/x100.jpg",
      avatar_large_url: "https://p16.example/xl.jpg",
      bio_description: "bio",
      email: "",
      profile_deep_link: "https://vm.tiktok.example/name",
      follower_count: 1,
      following_count: 2,
      likes_count: 3,
      video_count: 4,
      is_verified: true,
    };
    const profile: TikTokProfile = {
      data: { user },
      error: { code: "ok", message: "", log_id: "L" },
    };
    expect(await TikTok().profile!(profile, {})).toEqual({
      id: "o",
      name: "Display",
      image: "https://p16.example/x.jpg",
      email: "name",
    });
  });
});

describe("the username fallback is no address", () => {
  /** A TikTok sign-in with an adapter; returns the callback's response and the session. */
  async function signUp(config: AuthConfig) {
    const { response, jar } = await signIn(config);
    return { response, session: await sessionOf(config, jar) };
  }

  test.each([
    { linking: false, name: "linking off" },
    { linking: true, name: "dangerous email linking on" },
  ])(
    "$name: a recycled username signs its new holder into a user of their own",
    async ({ linking }) => {
      const adapter = MemoryAdapter();
      const provider = pointedAtServer({
        ...credentials(),
        allowDangerousEmailAccountLinking: linking,
      });
      const { config, logger } = setup(provider, { adapter });
      tt.setUser({ open_id: "tt-open-1", username: "dancer" });
      await signUp(config);
      const first = adapter.rows.account({ provider: "tiktok", providerAccountId: "tt-open-1" });
      // The username is not stored as the user's address.
      expect(adapter.rows.user(first!.userId)).toMatchObject({ email: "", emailVerified: null });

      // TikTok hands "dancer" to someone else.
      tt.setUser({ open_id: "tt-open-2", username: "dancer", display_name: "New Dancer" });
      const { response, session } = await signUp(config);
      expect(response.headers.get("location")).toBe(ORIGIN);
      const second = adapter.rows.account({ provider: "tiktok", providerAccountId: "tt-open-2" });
      expect(second?.userId).toBeDefined();
      expect(second!.userId).not.toBe(first!.userId);
      expect(session?.user?.name).toBe("New Dancer");
      expect(adapter.rows.count()).toMatchObject({ users: 2, accounts: 2 });
      expect(logger.error).not.toHaveBeenCalled();
      expect(logger.warn).not.toHaveBeenCalled();
    },
  );

  test("an email from TikTok's email field is the user's address", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(
      pointedAtServer({
        ...credentials(),
        fields: ["avatar_url", "display_name", "username", "email"],
      }),
      { adapter },
    );
    tt.setUser({ email: "TT@Example.com" });
    const { session } = await signUp(config);
    expect(session?.user?.email).toBe("tt@example.com");
    expect((await adapter.getUserByEmail!("tt@example.com"))?.name).toBe("TT User");
  });

  test("emailIsAddress: only TikTok's own email field counts", () => {
    const provider = TikTok();
    const profile = (user: Partial<TikTokUser>): TikTokProfile => ({
      data: {
        user: { open_id: "o", username: "u@x.example", display_name: "", avatar_url: "", ...user },
      },
      error: { code: "ok", message: "", log_id: "L" },
    });
    // A username that happens to look like an address is still a username.
    expect(provider.emailIsAddress!(profile({}), { email: "u@x.example" })).toBe(false);
    expect(provider.emailIsAddress!(profile({ email: "" }), { email: "u@x.example" })).toBe(false);
    expect(
      provider.emailIsAddress!(profile({ email: "Me@Mail.example" }), { email: "me@mail.example" }),
    ).toBe(true);
  });
});

describe("credentials from AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET only", () => {
  test("TikTok() pointed at the server", async () => {
    vi.stubEnv("AUTH_TIKTOK_ID", tt.clientKey);
    vi.stubEnv("AUTH_TIKTOK_SECRET", tt.clientSecret);
    const { config, logger } = setup(pointedAtServer());
    const { url, response } = await signIn(config);
    expect(url.searchParams.get("client_key")).toBe(tt.clientKey);
    expect(url.searchParams.get("client_id")).toBe(tt.clientKey);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(url.href).not.toContain("undefined");
    expectNoUndefined(tt.requests);
    expect(logger.error).not.toHaveBeenCalled();
  });

  test.each([
    // The uninvoked factory does not type-check as a provider (reported library bug).
    ["the uninvoked factory TikTok", () => TikTok as unknown as Provider],
    ["TikTok()", () => TikTok() as unknown as Provider],
  ])("%s with its built-in TikTok URLs", async (_name, provider) => {
    vi.stubEnv("AUTH_TIKTOK_ID", tt.clientKey);
    vi.stubEnv("AUTH_TIKTOK_SECRET", tt.clientSecret);
    routeTikTokHostsToServer();
    const { config, logger } = setup(provider());
    const { url, response, jar } = await signIn(config);
    expect(url.origin + url.pathname).toBe("https://www.tiktok.com/v2/auth/authorize/");
    expect(url.searchParams.get("client_key")).toBe(tt.clientKey);
    expect(url.href).not.toContain("undefined");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(tokenRequests()).toHaveLength(1);
    expect(userinfoRequests()[0]!.query.fields).toBe("open_id,avatar_url,display_name,username");
    expectNoUndefined(tt.requests);
    expect((await sessionOf(config, jar))?.user?.name).toBe("TT User");
    expect(logger.error).not.toHaveBeenCalled();
  });
});

describe("errors", () => {
  /** Records the bodies of user info answers, to read TikTok's log_id. */
  function recordUserinfo() {
    const bodies: { error: { code: string; log_id: string } }[] = [];
    vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
      const response = await realFetch(input, init);
      if (String(input).startsWith(tt.userinfoUrl)) bodies.push(await response.clone().json());
      return response;
    });
    return bodies;
  }

  test("a profile error object (code ≠ ok) fails the sign-in, logging the code and log_id", async () => {
    const bodies = recordUserinfo();
    tt.setProfileError({ code: "rate_limit_exceeded", message: "Slow down" });
    const { config, logger } = setup(pointedAtServer(credentials()));
    const { response, jar } = await signIn(config);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expectNoSessionCookie(response);
    const logId = bodies[0]!.error.log_id;
    expectOneError(
      logger,
      "OAuthCallbackError",
      new RegExp(`code=rate_limit_exceeded log_id=${logId}`),
    );
    expect(await sessionOf(config, jar)).toBeNull();
  });

  // Regression (was a library bug, now fixed).
  test("a 401 profile error is logged with its code and log_id too", async () => {
    tt.setProfileError({ code: "access_token_invalid", message: "Bad token", status: 401 });
    const { config, logger } = setup(pointedAtServer(credentials()));
    const { response } = await signIn(config);
    expect(response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expectOneError(logger, "OAuthCallbackError", /code=access_token_invalid log_id=\w+/);
  });
});

test('basePath "/api/auth" gives the redirect_uri {origin}/api/auth/callback/tiktok', async () => {
  const { config } = setup(pointedAtServer(credentials()), { basePath: "/api/auth" });
  const { url, response, jar } = await signIn(config, new Jar(), "/api/auth");
  expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/api/auth/callback/tiktok`);
  expect(new URLSearchParams(tokenRequests()[0]!.body).get("redirect_uri")).toBe(
    `${ORIGIN}/api/auth/callback/tiktok`,
  );
  expect(response.headers.get("location")).toBe(ORIGIN);
  expect((await sessionOf(config, jar, "/api/auth"))?.user?.name).toBe("TT User");
});
