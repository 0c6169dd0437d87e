/**
 * GitHub end to end through `Auth()` against an imitation of github.com and api.github.com:
 * GitHub's authorize parameters, its token endpoint (secret in the body, JSON only when asked,
 * errors as HTTP 200 with an `error` field), the REST API's rules (Bearer token, a User-Agent,
 * `/user/emails` only with the `user:email` scope), and GitHub Enterprise Server's `/api/v3`.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import GitHub, {
  type GitHubEmail,
  type GitHubOptions,
  type GitHubProfile,
  githubUrls,
  primaryVerifiedEmail,
} from "@gatehousejs/core/providers/github";
import type { Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, type Reply, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/github.js";

interface GitHubUser extends Record<string, unknown> {
  profile: GitHubProfile;
  emails: GitHubEmail[];
}

/** GitHub reports token errors with HTTP 200 and its own codes (its troubleshooting guide). */
const GITHUB_TOKEN_ERRORS: Record<string, string> = {
  invalid_grant: "bad_verification_code",
  invalid_client: "incorrect_client_credentials",
};

function githubError(error: string, description: string): Reply {
  const code = GITHUB_TOKEN_ERRORS[error] ?? error;
  return {
    status: 200,
    body: {
      error: code,
      error_description: description,
      error_uri: `https://docs.github.com/apps/troubleshooting#${code}`,
    },
  };
}

/** An imitation of github.com (or an Enterprise Server) with GitHub's API rules. */
async function startGitHub(web: string, api: string): Promise<Imitation<GitHubUser>> {
  const gh = await startImitation<GitHubUser>({
    origins: [web, api],
    authorize: {
      url: `${web}/login/oauth/authorize`,
      // GitHub accepts PKCE (S256 only) but does not require it; scope may be empty.
      pkce: "optional",
      scope: {
        required: false,
        separator: " ",
        known: ["read:user", "user:email", "user", "repo"],
      },
      redirectUris: [`${ORIGIN}/auth/callback/github`],
    },
    token: {
      url: `${web}/login/oauth/access_token`,
      auth: "client_secret_post",
      expiresIn: null,
      refreshToken: false,
      // GitHub lowercases the token type and separates granted scopes with commas.
      response: (body) => ({
        ...body,
        token_type: "bearer",
        scope: String(body.scope).replace(/ /g, ","),
      }),
      // GitHub answers form-encoded unless the client asks for JSON.
      reply: (body, _grant, request) =>
        /application\/json/.test(request.headers.accept ?? "")
          ? { body }
          : {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams(body as Record<string, string>).toString(),
            },
      error: githubError,
    },
    unauthorized: () => ({
      status: 401,
      body: {
        message: "Requires authentication",
        documentation_url: "https://docs.github.com/rest",
      },
    }),
    user: { profile: fixtures.publicEmail, emails: fixtures.emails },
  });
  const withUserAgent =
    (handler: Parameters<typeof gh.route>[2]): Parameters<typeof gh.route>[2] =>
    (request) =>
      request.recorded.headers["user-agent"]
        ? handler(request)
        : { status: 403, body: { message: "Request forbidden by administrative rules." } };
  gh.route(
    "GET",
    `${api}/user`,
    withUserAgent(({ grant }) => ({ body: grant!.user.profile })),
  );
  gh.route(
    "GET",
    `${api}/user/emails`,
    withUserAgent(({ grant }) =>
      grant!.scopes.includes("user:email") || grant!.scopes.includes("user")
        ? { body: grant!.user.emails }
        : { status: 404, body: { message: "Not Found" } },
    ),
  );
  return gh;
}

let gh: Imitation<GitHubUser>;
beforeAll(async () => {
  gh = await startGitHub("https://github.com", "https://api.github.com");
});
afterEach(() => {
  gh.reset();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
afterAll(() => gh.close());

const TOKEN = "https://github.com/login/oauth/access_token";
const USER = "https://api.github.com/user";
const EMAILS = "https://api.github.com/user/emails";

/** GitHub() with credentials, its HTTP routed to the imitation; every URL is the real default. */
const github = (options: GitHubOptions = {}) =>
  GitHub({
    clientId: gh.clientId,
    clientSecret: gh.clientSecret,
    [customFetch]: gh.fetch,
    ...options,
  }) as Provider;

describe("the GitHub sign-in", () => {
  test("github.com's authorize parameters, the secret in the token body, a Bearer /user call, a session", async () => {
    const { config, logger } = providerConfig(github());
    const result = await signIn(config, "github", gh);

    const auth = result.authorization!;
    expect(auth.origin + auth.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: gh.clientId,
      redirect_uri: `${ORIGIN}/auth/callback/github`,
      response_type: "code",
      scope: "read:user user:email",
      code_challenge_method: "S256",
      state: expect.any(String),
    });

    const [token] = gh.requestsTo("POST", TOKEN);
    expect(token!.headers.accept).toMatch(/application\/json/);
    expect(token!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(token!.body))).toMatchObject({
      client_id: gh.clientId,
      client_secret: gh.clientSecret,
      code: expect.any(String),
      code_verifier: expect.any(String),
      redirect_uri: `${ORIGIN}/auth/callback/github`,
    });

    const [user] = gh.requestsTo("GET", USER);
    expect(user!.headers.authorization).toMatch(/^Bearer at-/);
    expect(user!.headers["x-github-api-version"]).toBe("2022-11-28");
    expect(user!.headers.accept).toBe("application/vnd.github+json");
    // The public address is on the profile: no need to read the address list.
    expect(gh.requestsTo("GET", EMAILS)).toEqual([]);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Mona Lisa",
      email: "mona@github.example",
      image: "https://avatars.githubusercontent.com/u/583231?v=4",
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("the account is keyed by the numeric id and stores GitHub's token", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(github(), { adapter });
    await signIn(config, "github", gh);
    const account = adapter.rows.account({ provider: "github", providerAccountId: "583231" });
    expect(account).toMatchObject({
      type: "oauth",
      access_token: expect.stringMatching(/^at-/),
      token_type: "bearer",
      scope: "read:user,user:email",
    });
  });

  test("a private email: the primary, verified address from /user/emails", async () => {
    gh.user = { profile: fixtures.privateEmail, emails: fixtures.emails };
    const { config } = providerConfig(github());
    const { session } = await signIn(config, "github", gh);
    expect(session?.user?.email).toBe("mona.private@example.com");
    const [emails] = gh.requestsTo("GET", EMAILS);
    expect(emails!.headers.authorization).toMatch(/^Bearer at-/);
    expect(emails!.headers["user-agent"]).toBeTruthy();
  });

  test("a private, unverified primary address is not used (nor a verified secondary one)", async () => {
    gh.user = { profile: fixtures.privateEmail, emails: fixtures.unverifiedPrimary };
    const adapter = MemoryAdapter();
    const { config } = providerConfig(github(), { adapter });
    const { response, session } = await signIn(config, "github", gh);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user?.email ?? null).toBeNull();
    expect(await adapter.getUserByEmail!("old@example.com")).toBeNull();
    expect(await adapter.getUserByEmail!("new@example.com")).toBeNull();
  });

  test("without the user:email scope a private address stays unknown; the sign-in goes on", async () => {
    gh.user = { profile: fixtures.privateEmail, emails: fixtures.emails };
    const { config, logger } = providerConfig(github({ scope: "read:user" }));
    const result = await signIn(config, "github", gh);
    expect(result.authorization!.searchParams.get("scope")).toBe("read:user");
    expect(gh.requestsTo("GET", EMAILS)).toHaveLength(1);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Mona Lisa",
      email: null,
      image: fixtures.privateEmail.avatar_url,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("no name: the login; no avatar: image null", async () => {
    gh.user = { profile: fixtures.bare, emails: [] };
    const { config } = providerConfig(github());
    const { session } = await signIn(config, "github", gh);
    expect(session?.user).toEqual({ name: "mona", email: null, image: null });
  });

  test("the uninvoked factory in providers, credentials from the environment", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", gh.clientId);
    vi.stubEnv("AUTH_GITHUB_SECRET", gh.clientSecret);
    // No [customFetch] on an uninvoked factory: the global fetch goes to the imitation.
    vi.stubGlobal("fetch", gh.fetch);
    const { config, logger } = providerConfig(GitHub);
    const { response, session } = await signIn(config, "github", gh);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user?.name).toBe("Mona Lisa");
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("credentials from AUTH_GITHUB_ID and AUTH_GITHUB_SECRET", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", gh.clientId);
    vi.stubEnv("AUTH_GITHUB_SECRET", gh.clientSecret);
    const { config } = providerConfig(GitHub({ [customFetch]: gh.fetch }) as Provider);
    const { authorization, session } = await signIn(config, "github", gh);
    expect(authorization!.searchParams.get("client_id")).toBe(gh.clientId);
    expect(session?.user?.name).toBe("Mona Lisa");
  });
});

describe("GitHub Enterprise Server", () => {
  const BASE = "https://github.example.com";
  let ghes: Imitation<GitHubUser>;
  beforeAll(async () => {
    ghes = await startGitHub(BASE, `${BASE}/api/v3`);
  });
  afterAll(() => ghes.close());

  test("the base URL moves the authorize and token endpoints and the API to /api/v3", async () => {
    ghes.user = { profile: fixtures.privateEmail, emails: fixtures.emails };
    const provider = GitHub({
      enterprise: { baseUrl: `${BASE}/` },
      clientId: ghes.clientId,
      clientSecret: ghes.clientSecret,
      [customFetch]: ghes.fetch,
    }) as Provider;
    const { config } = providerConfig(provider);
    const result = await signIn(config, "github", ghes);
    expect(result.authorization!.origin + result.authorization!.pathname).toBe(
      `${BASE}/login/oauth/authorize`,
    );
    expect(ghes.requestsTo("POST", `${BASE}/login/oauth/access_token`)).toHaveLength(1);
    expect(ghes.requestsTo("GET", `${BASE}/api/v3/user`)).toHaveLength(1);
    expect(ghes.requestsTo("GET", `${BASE}/api/v3/user/emails`)).toHaveLength(1);
    expect(result.session?.user?.email).toBe("mona.private@example.com");
  });

  test("githubUrls", () => {
    expect(githubUrls()).toEqual({ web: "https://github.com", api: "https://api.github.com" });
    expect(githubUrls({ baseUrl: "https://ghe.example/some/path" })).toEqual({
      web: "https://ghe.example",
      api: "https://ghe.example/api/v3",
    });
  });
});

describe("GitHub's errors end on the sign-in page without a session", () => {
  const secrets = () => [gh.clientSecret];

  test("the user refuses: error=access_denied on the callback", async () => {
    const { config, logger } = providerConfig(github());
    const result = await signIn(config, "github", gh, { decision: { deny: true } });
    expectFailedSignIn(result, logger, { secrets: secrets() });
    expect(gh.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code: GitHub's HTTP 200 bad_verification_code is a failure, and logged by its code", async () => {
    const { config, logger } = providerConfig(github());
    const result = await signIn(config, "github", gh, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "0123456789abcdef0123");
        return { ...answer, url };
      },
    });
    const line = expectFailedSignIn(result, logger, { secrets: secrets() });
    expect(line).toContain("bad_verification_code");
    expect(gh.requestsTo("GET", USER)).toEqual([]);
  });

  test("a wrong client secret: incorrect_client_credentials", async () => {
    const { config, logger } = providerConfig(github({ clientSecret: "not-the-secret" }));
    const result = await signIn(config, "github", gh);
    const line = expectFailedSignIn(result, logger, { secrets: ["not-the-secret"] });
    expect(line).toContain("incorrect_client_credentials");
  });

  test.each([
    ["the token endpoint", "POST", TOKEN],
    ["GET /user", "GET", USER],
    ["GET /user/emails", "GET", EMAILS],
  ])("a 5xx from %s", async (_name, method, url) => {
    gh.user = { profile: fixtures.privateEmail, emails: fixtures.emails };
    gh.force(method, url, { status: 502, body: "<html>Bad gateway</html>" });
    const { config, logger } = providerConfig(github());
    expectFailedSignIn(await signIn(config, "github", gh), logger, { secrets: secrets() });
  });
});

describe("profile mapping (fixtures from GitHub's REST reference)", () => {
  const provider = GitHub();

  test("a public address, name and avatar", async () => {
    expect(await provider.profile!(fixtures.publicEmail, {})).toEqual({
      id: "583231",
      name: "Mona Lisa",
      email: "mona@github.example",
      image: "https://avatars.githubusercontent.com/u/583231?v=4",
    });
  });

  test("a private address (not filled in yet), no name, no avatar", async () => {
    expect(await provider.profile!(fixtures.bare, {})).toEqual({
      id: "583231",
      name: "mona",
      email: null,
      image: null,
    });
  });

  test("the address from /user/emails: primary and verified, else none", () => {
    expect(primaryVerifiedEmail(fixtures.emails)).toBe("mona.private@example.com");
    expect(primaryVerifiedEmail(fixtures.unverifiedPrimary)).toBeNull();
    expect(primaryVerifiedEmail([])).toBeNull();
    expect(primaryVerifiedEmail(null)).toBeNull();
  });

  test("options and profile are typed; the button has GitHub's colours and an inline logo", () => {
    expectTypeOf(GitHub).parameter(0).toEqualTypeOf<GitHubOptions | undefined>();
    expectTypeOf(provider.profile!).parameter(0).toEqualTypeOf<GitHubProfile>();
    // @ts-expect-error: the Enterprise base URL is required in `enterprise`
    expect(() => GitHub({ enterprise: {} })).toThrow(TypeError);
    expect(provider.style?.logo).toMatch(/^data:image\/svg\+xml/);
    expect(provider.style).toMatchObject({ bg: "#24292f", text: "#ffffff" });
  });
});
