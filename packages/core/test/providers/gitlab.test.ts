/**
 * GitLab end to end through `Auth()` against imitations of gitlab.com and of a self-managed
 * instance: discovery at the issuer, `/oauth/authorize`, `/oauth/token` (HTTP Basic, GitLab's
 * `created_at`), an ID token with GitLab's short claim list, and the profile from
 * `/oauth/userinfo`, whose subject must match the ID token's.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import GitLab, {
  GITLAB_ISSUER,
  type GitLabOptions,
  type GitLabProfile,
} from "@gatehousejs/core/providers/gitlab";
import type { Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/gitlab.js";

/** An imitation of a GitLab instance at `base`. */
function startGitLab(base: string) {
  return startImitation<fixtures.GitLabUser>({
    origins: [base],
    authorize: {
      url: `${base}/oauth/authorize`,
      pkce: "optional",
      scope: {
        separator: " ",
        include: ["openid"],
        known: ["openid", "profile", "email", "read_user", "api", "read_api"],
      },
      redirectUris: [`${ORIGIN}/auth/callback/gitlab`],
    },
    token: {
      url: `${base}/oauth/token`,
      auth: "client_secret_basic",
      expiresIn: 7200,
      response: (body) => ({ ...body, created_at: Math.floor(Date.now() / 1000) }),
    },
    oidc: {
      issuer: base,
      jwksUrl: `${base}/oauth/discovery/keys`,
      userinfoUrl: `${base}/oauth/userinfo`,
      claims: (grant) => fixtures.idTokenFor(grant.user, grant.scopes),
      userinfo: (grant) => fixtures.userinfoFor(grant.user, grant.scopes),
    },
    user: fixtures.full,
  });
}

const TOKEN = "https://gitlab.com/oauth/token";
const USERINFO = "https://gitlab.com/oauth/userinfo";

let gl: Imitation<fixtures.GitLabUser>;
beforeAll(async () => {
  gl = await startGitLab(GITLAB_ISSUER);
});
afterEach(() => {
  gl.reset();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
afterAll(() => gl.close());

const gitlab = (options: GitLabOptions = {}) =>
  GitLab({
    clientId: gl.clientId,
    clientSecret: gl.clientSecret,
    [customFetch]: gl.fetch,
    ...options,
  }) as Provider;

describe("the GitLab sign-in", () => {
  test("discovery at https://gitlab.com, PKCE, state and nonce, Basic auth, the profile from userinfo", async () => {
    const { config, logger } = providerConfig(gitlab());
    const result = await signIn(config, "gitlab", gl);

    const auth = result.authorization!;
    expect(auth.origin + auth.pathname).toBe("https://gitlab.com/oauth/authorize");
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: gl.clientId,
      redirect_uri: `${ORIGIN}/auth/callback/gitlab`,
      response_type: "code",
      scope: "openid profile email",
      code_challenge_method: "S256",
      state: expect.any(String),
      nonce: expect.any(String),
    });
    expect(
      gl.requestsTo("GET", "https://gitlab.com/.well-known/openid-configuration"),
    ).toHaveLength(1);
    const [token] = gl.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toMatch(/^Basic /);
    expect(new URLSearchParams(token!.body).get("code_verifier")).toBeTruthy();
    const [info] = gl.requestsTo("GET", USERINFO);
    expect(info!.headers.authorization).toMatch(/^Bearer at-/);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    // Name and picture exist only in the userinfo answer, not in GitLab's ID token.
    expect(result.session?.user).toEqual({
      name: "Grace Hopper",
      email: "grace.hopper@example.com",
      image: fixtures.full.picture,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("the account is keyed by sub and keeps the ID token; a verified address is stored", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(gitlab(), { adapter });
    await signIn(config, "gitlab", gl);
    const account = adapter.rows.account({ provider: "gitlab", providerAccountId: "4217763" });
    expect(account).toMatchObject({ type: "oidc", id_token: expect.any(String) });
    expect(await adapter.getUserByEmail!("grace.hopper@example.com")).not.toBeNull();
  });

  test("an unverified address is never stored as the user's address", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(gitlab(), { adapter });
    const result = await signIn(config, "gitlab", gl, { decision: { user: fixtures.unverified } });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(await adapter.getUserByEmail!("pending@example.com")).toBeNull();
  });

  test("without the email scope: email null; no name or picture: the username, image null", async () => {
    gl.user = fixtures.noPictureNoName;
    const provider = gitlab({ authorization: { params: { scope: "openid profile" } } });
    const { config } = providerConfig(provider);
    const { session } = await signIn(config, "gitlab", gl);
    expect(session?.user).toEqual({ name: "anon-dev", email: null, image: null });
  });

  test("the uninvoked factory in providers, credentials from the environment", async () => {
    vi.stubEnv("AUTH_GITLAB_ID", gl.clientId);
    vi.stubEnv("AUTH_GITLAB_SECRET", gl.clientSecret);
    // No [customFetch] on an uninvoked factory: the global fetch goes to the imitation.
    vi.stubGlobal("fetch", gl.fetch);
    const { config, logger } = providerConfig(GitLab);
    const { response, session } = await signIn(config, "gitlab", gl);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user?.name).toBe("Grace Hopper");
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("credentials from AUTH_GITLAB_ID and AUTH_GITLAB_SECRET", async () => {
    vi.stubEnv("AUTH_GITLAB_ID", gl.clientId);
    vi.stubEnv("AUTH_GITLAB_SECRET", gl.clientSecret);
    const { config } = providerConfig(GitLab({ [customFetch]: gl.fetch }) as Provider);
    const { authorization, session } = await signIn(config, "gitlab", gl);
    expect(authorization!.searchParams.get("client_id")).toBe(gl.clientId);
    expect(session?.user?.name).toBe("Grace Hopper");
  });
});

describe("a self-managed GitLab", () => {
  const BASE = "https://gitlab.example.com";
  let own: Imitation<fixtures.GitLabUser>;
  beforeAll(async () => {
    own = await startGitLab(BASE);
  });
  afterAll(() => own.close());
  // Discovery is cached per fetch function: each case brings its own, so each discovers.
  const fresh = (): typeof fetch => (input, init) => own.fetch(input, init);

  test.each([
    ["the issuer option", () => GitLab({ issuer: BASE, [customFetch]: fresh() })],
    [
      "AUTH_GITLAB_ISSUER",
      () => {
        vi.stubEnv("AUTH_GITLAB_ISSUER", BASE);
        return GitLab({ [customFetch]: fresh() });
      },
    ],
  ])("named by %s", async (_name, make) => {
    vi.stubEnv("AUTH_GITLAB_ID", own.clientId);
    vi.stubEnv("AUTH_GITLAB_SECRET", own.clientSecret);
    const { config } = providerConfig(make() as Provider);
    const result = await signIn(config, "gitlab", own);
    expect(result.authorization!.origin).toBe(BASE);
    expect(own.requestsTo("GET", `${BASE}/.well-known/openid-configuration`)).toHaveLength(1);
    expect(result.session?.user?.email).toBe("grace.hopper@example.com");
    own.reset();
  });
});

describe("GitLab's errors end on the sign-in page without a session", () => {
  const secrets = () => [gl.clientSecret];

  test("the user denies access: error=access_denied", async () => {
    const { config, logger } = providerConfig(gitlab());
    const result = await signIn(config, "gitlab", gl, { decision: { deny: true } });
    expectFailedSignIn(result, logger, { secrets: secrets() });
  });

  test("an invalid code: invalid_grant", async () => {
    const { config, logger } = providerConfig(gitlab());
    const result = await signIn(config, "gitlab", gl, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "d521629bd8b8c49b817bf29d1fccaaa4");
        return { ...answer, url };
      },
    });
    expect(expectFailedSignIn(result, logger, { secrets: secrets() })).toContain("invalid_grant");
  });

  test.each([
    ["the token endpoint", "POST", TOKEN],
    ["the userinfo endpoint", "GET", USERINFO],
  ])("a 5xx from %s", async (_name, method, url) => {
    gl.force(method, url, { status: 500, body: "We're sorry, but something went wrong." });
    const { config, logger } = providerConfig(gitlab());
    expectFailedSignIn(await signIn(config, "gitlab", gl), logger, { secrets: secrets() });
  });

  test("a userinfo answer about another user is refused", async () => {
    gl.force("GET", USERINFO, { body: fixtures.userinfoFor(fixtures.unverified, ["profile"]) });
    const { config, logger } = providerConfig(gitlab());
    expectFailedSignIn(await signIn(config, "gitlab", gl), logger, { secrets: secrets() });
  });
});

describe("profile mapping (fixtures from GitLab's claim table)", () => {
  const provider = GitLab();

  test("a full userinfo answer", () => {
    expect(provider.profile!(fixtures.full, {})).toEqual({
      id: "4217763",
      name: "Grace Hopper",
      email: "grace.hopper@example.com",
      image: fixtures.full.picture,
    });
  });

  test("no email, no name, no picture", () => {
    const answer = fixtures.userinfoFor(fixtures.noPictureNoName, ["profile"]);
    expect(provider.profile!(answer as GitLabProfile, {})).toEqual({
      id: "5120034",
      name: "anon-dev",
      email: null,
      image: null,
    });
  });

  test("options and profile are typed; gitlab.com by default; GitLab's colours and an inline logo", () => {
    expectTypeOf(GitLab).parameter(0).toEqualTypeOf<GitLabOptions | undefined>();
    expectTypeOf(provider.profile!).parameter(0).toEqualTypeOf<GitLabProfile>();
    // @ts-expect-error: the issuer is a string
    GitLab({ issuer: 1 });
    expect(provider.issuer).toBe("https://gitlab.com");
    expect(provider.idToken).toBe(false);
    expect(provider.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
