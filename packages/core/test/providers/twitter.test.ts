/**
 * X (Twitter) through `Auth()` against an imitation of `https://x.com` and `https://api.x.com`:
 * OAuth 2.0 with PKCE (required) and state, a confidential client authenticating with
 * `client_secret_basic`, and `GET /2/users/me` answering only the `user.fields` asked for,
 * refusing `confirmed_email` without the `users.email` scope, in X's problem-details error shape.
 */
import { customFetch } from "@gatehousejs/core";
import Twitter, {
  DEFAULT_TWITTER_SCOPE,
  type TwitterOptions,
  type TwitterProfile,
  type TwitterUser,
  twitterUserFields,
} from "@gatehousejs/core/providers/twitter";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import { expectNoSessionCookie, loggedErrors, signInError } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import { type Imitation, type Reply, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/twitter.js";

const AUTHORIZE = "https://x.com/i/oauth2/authorize";
const TOKEN = "https://api.x.com/2/oauth2/token";
const ME = "https://api.x.com/2/users/me";
const SCOPES = [
  "tweet.read",
  "tweet.write",
  "users.read",
  "users.email",
  "follows.read",
  "offline.access",
  "like.read",
];

/** X's error body (RFC 7807 problem details). */
const problem = (status: number, title: string, detail: string): Reply => ({
  status,
  headers: { "content-type": "application/problem+json" },
  body: { title, type: "about:blank", status, detail },
});

let x: Imitation<TwitterUser>;

beforeAll(async () => {
  x = await startImitation<TwitterUser>({
    origins: ["https://x.com", "https://api.x.com"],
    authorize: {
      url: AUTHORIZE,
      pkce: "required",
      state: true,
      scope: { known: SCOPES },
      redirectUris: [`${ORIGIN}/auth/callback/twitter`],
    },
    token: { url: TOKEN, auth: "client_secret_basic" },
    user: fixtures.full,
    unauthorized: () => problem(401, "Unauthorized", "Unauthorized"),
  });
  x.route("GET", ME, ({ url, grant }) => {
    const scopes = grant!.scopes;
    if (!scopes.includes("users.read") || !scopes.includes("tweet.read")) {
      return problem(403, "Forbidden", "Missing required OAuth2 scopes: tweet.read users.read");
    }
    const fields = (url.searchParams.get("user.fields") ?? "").split(",").filter(Boolean);
    if (fields.includes("confirmed_email") && !scopes.includes("users.email")) {
      return problem(403, "Forbidden", "Missing required OAuth2 scopes: users.email");
    }
    // The default fields, and the others only when asked for.
    const { id, name, username, ...rest } = grant!.user;
    const data: Record<string, unknown> = { id, name, username };
    for (const field of fields) if (field in rest) data[field] = rest[field];
    return { body: { data } };
  });
});
afterEach(() => {
  x.reset();
  vi.unstubAllEnvs();
});
afterAll(() => x.close());

function provider(extra: TwitterOptions = {}): OAuthConfig {
  return Twitter({
    clientId: x.clientId,
    clientSecret: x.clientSecret,
    [customFetch]: x.fetch,
    ...extra,
  }) as unknown as OAuthConfig;
}

function setup(p: Provider, overrides: Partial<AuthConfig> = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [p],
    ...overrides,
  };
  return { config, logger };
}

function expectFailed(
  result: Awaited<ReturnType<typeof signIn>>,
  logger: ReturnType<typeof recordingLogger>,
) {
  expect(result.response.status).toBe(302);
  expect(result.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
  expectNoSessionCookie(result.response);
  expect(result.session).toBeNull();
  const lines = loggedErrors(logger);
  expect(lines, lines.join("\n")).toHaveLength(1);
  expect(lines[0]).toMatch(/^OAuthCallbackError: /);
  expect(lines[0]).not.toContain(x.clientSecret);
  expect(lines[0]).not.toMatch(/\bat-[\w-]{10,}/);
  return lines[0]!;
}

describe("twitter: the sign-in", () => {
  test("PKCE and state at x.com, client_secret_basic at api.x.com, the profile from /2/users/me without an email", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "twitter", x);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("users.read tweet.read offline.access");
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("state")).toBeTruthy();

    const [token] = x.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toMatch(/^Basic /);
    const form = new URLSearchParams(token!.body);
    expect(form.has("client_secret")).toBe(false);
    expect(form.get("code_verifier")).toBeTruthy();

    const [me] = x.requestsTo("GET", ME);
    expect(me!.query["user.fields"]).toBe("profile_image_url");

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "X Developers",
      email: null,
      image: fixtures.full.profile_image_url,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("with the users.email scope the confirmed address is asked for and used", async () => {
    const { config } = setup(provider({ scope: `${DEFAULT_TWITTER_SCOPE} users.email` }));
    const result = await signIn(config, "twitter", x);
    expect(x.requestsTo("GET", ME)[0]!.query["user.fields"]).toBe(
      "profile_image_url,confirmed_email",
    );
    expect(result.session?.user?.email).toBe("devs@x-example.com");
  });

  test("the imitation holds X's rule: confirmed_email without users.email is refused with 403", async () => {
    const { config, logger } = setup(
      provider({ userinfo: { params: { "user.fields": "confirmed_email" } } }),
    );
    const line = expectFailed(await signIn(config, "twitter", x), logger);
    expect(line).toContain("HTTP 403");
  });

  test("extra user.fields are asked for; a user with X's default avatar keeps it, one without a name shows the handle", async () => {
    const { config } = setup(provider({ fields: ["verified", "created_at"] }));
    const withDefault = await signIn(config, "twitter", x, {
      decision: { user: fixtures.defaultAvatar },
    });
    expect(x.requestsTo("GET", ME)[0]!.query["user.fields"]).toBe(
      "profile_image_url,verified,created_at",
    );
    expect(withDefault.session?.user?.image).toBe(fixtures.defaultAvatar.profile_image_url);
    const bare = await signIn(config, "twitter", x, { decision: { user: fixtures.bare } });
    expect(bare.session?.user).toEqual({ name: "handle_only", email: null, image: null });
  });

  test("client id and secret come from AUTH_TWITTER_ID and AUTH_TWITTER_SECRET", async () => {
    vi.stubEnv("AUTH_TWITTER_ID", x.clientId);
    vi.stubEnv("AUTH_TWITTER_SECRET", x.clientSecret);
    const { config } = setup(Twitter({ [customFetch]: x.fetch }) as unknown as OAuthConfig);
    const result = await signIn(config, "twitter", x);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
  });
});

describe("twitter: provider errors end on the sign-in page", () => {
  test("access_denied on the callback", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "twitter", x, { decision: { deny: true } });
    expect(result.answer!.url.searchParams.get("error")).toBe("access_denied");
    expectFailed(result, logger);
    expect(x.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code at the token endpoint", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "twitter", x, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "never-issued");
        return { ...answer, url };
      },
    });
    expect(expectFailed(result, logger)).toContain("invalid_grant");
  });

  test("a 5xx from the token endpoint, and from /2/users/me", async () => {
    x.force("POST", TOKEN, problem(503, "Service Unavailable", "Over capacity"), 1);
    const first = setup(provider());
    expectFailed(await signIn(first.config, "twitter", x), first.logger);

    x.force("GET", ME, problem(500, "Internal Server Error", "Something went wrong"), 1);
    const second = setup(provider());
    expect(expectFailed(await signIn(second.config, "twitter", x), second.logger)).toContain(
      "HTTP 500",
    );
  });

  test("a 200 from /2/users/me that carries only errors", async () => {
    x.force("GET", ME, { body: { errors: [{ title: "Not Found Error", detail: "gone" }] } }, 1);
    const { config, logger } = setup(provider());
    const result = await signIn(config, "twitter", x);
    expect(result.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expect(result.session).toBeNull();
    expect(loggedErrors(logger)[0]).toMatch(/Not Found Error/);
  });
});

describe("twitter: factory and profile", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Twitter).parameter(0).toEqualTypeOf<TwitterOptions | undefined>();
    expectTypeOf(Twitter().profile!).parameter(0).toEqualTypeOf<TwitterProfile>();
    // @ts-expect-error: fields is a list
    Twitter({ fields: "verified" });
  });

  test("maps data to { id, name, email, image }; confirmed_email only with users.email", async () => {
    const p = Twitter();
    expect(await p.profile!({ data: fixtures.full }, {})).toEqual({
      id: "2244994945",
      name: "X Developers",
      email: "devs@x-example.com",
      image: fixtures.full.profile_image_url,
    });
    expect(await p.profile!({ data: fixtures.bare }, {})).toEqual({
      id: fixtures.bare.id,
      name: "handle_only",
      email: null,
      image: null,
    });
    expect(twitterUserFields("users.read tweet.read")).toBe("profile_image_url");
    expect(twitterUserFields("users.read  users.email", ["profile_image_url"])).toBe(
      "profile_image_url,confirmed_email",
    );
  });

  test("OAuth 2 with PKCE, state and client_secret_basic; the button has an inline logo", () => {
    const p = Twitter();
    expect(p).toMatchObject({
      id: "twitter",
      type: "oauth",
      token: TOKEN,
      checks: ["pkce", "state"],
      client: { token_endpoint_auth_method: "client_secret_basic" },
    });
    expect(p.issuer).toBeUndefined();
    expect(p.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
