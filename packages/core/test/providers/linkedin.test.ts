/**
 * LinkedIn through `Auth()` against an imitation of `https://www.linkedin.com` and
 * `https://api.linkedin.com`: discovery at `https://www.linkedin.com/oauth`, the authorization
 * request with state (LinkedIn offers no PKCE to web apps), the secret in the token request's
 * body, the member's claims in the ID token, and LinkedIn's error answers.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import LinkedIn, {
  LINKEDIN_ISSUER,
  type LinkedInOptions,
  type LinkedInProfile,
} from "@gatehousejs/core/providers/linkedin";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import { expectNoSessionCookie, loggedErrors, signInError } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/linkedin.js";

const AUTHORIZE = "https://www.linkedin.com/oauth/v2/authorization";
const TOKEN = "https://www.linkedin.com/oauth/v2/accessToken";
const USERINFO = "https://api.linkedin.com/v2/userinfo";
const DISCOVERY = "https://www.linkedin.com/oauth/.well-known/openid-configuration";

let li: Imitation<LinkedInProfile>;

beforeAll(async () => {
  li = await startImitation<LinkedInProfile>({
    origins: ["https://www.linkedin.com", "https://api.linkedin.com"],
    authorize: {
      url: AUTHORIZE,
      state: true,
      nonce: false,
      scope: { include: ["openid"], known: ["openid", "profile", "email", "w_member_social"] },
      redirectUris: [`${ORIGIN}/auth/callback/linkedin`],
      // LinkedIn answers a refused request on the redirect URI.
      onInvalid: "redirect",
    },
    token: {
      url: TOKEN,
      auth: "client_secret_post",
      refreshToken: false,
      expiresIn: 5_183_999,
    },
    oidc: {
      issuer: LINKEDIN_ISSUER,
      jwksUrl: "https://www.linkedin.com/oauth/openid/jwks",
      userinfoUrl: USERINFO,
      metadata: { token_endpoint_auth_methods_supported: ["client_secret_post"] },
    },
    user: fixtures.full,
  });
});
afterEach(() => {
  li.reset();
  vi.unstubAllEnvs();
});
afterAll(() => li.close());

function provider(extra: LinkedInOptions = {}): OAuthConfig {
  return LinkedIn({
    clientId: li.clientId,
    clientSecret: li.clientSecret,
    [customFetch]: li.fetch,
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
  expect(lines[0]).not.toContain(li.clientSecret);
  return lines[0]!;
}

describe("linkedin: the sign-in", () => {
  test("discovers www.linkedin.com/oauth, sends state without PKCE, the secret in the body, and maps the ID token", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "linkedin", li);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("openid profile email");
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(auth.searchParams.has("code_challenge")).toBe(false);
    expect(li.requestsTo("GET", DISCOVERY)).toHaveLength(1);

    const [token] = li.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toBeUndefined();
    const form = new URLSearchParams(token!.body);
    expect(form.get("client_secret")).toBe(li.clientSecret);
    expect(form.has("code_verifier")).toBe(false);
    expect(li.requestsTo("GET", USERINFO)).toEqual([]);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "John Doe",
      email: "doe@email.example",
      image: fixtures.full.picture,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("client id and secret come from AUTH_LINKEDIN_ID and AUTH_LINKEDIN_SECRET", async () => {
    vi.stubEnv("AUTH_LINKEDIN_ID", li.clientId);
    vi.stubEnv("AUTH_LINKEDIN_SECRET", li.clientSecret);
    const { config } = setup(LinkedIn({ [customFetch]: li.fetch }) as unknown as OAuthConfig);
    const result = await signIn(config, "linkedin", li);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.email).toBe("doe@email.example");
  });

  test("no picture: image null; no email: email null and the name from given and family names", async () => {
    const { config } = setup(provider());
    const noPicture = await signIn(config, "linkedin", li, {
      decision: { user: fixtures.noPicture },
    });
    expect(noPicture.session?.user).toEqual({
      name: "Jane Roe",
      email: "jane.roe@email.example",
      image: null,
    });
    const noEmail = await signIn(config, "linkedin", li, { decision: { user: fixtures.noEmail } });
    expect(noEmail.session?.user).toEqual({
      name: "Max Mustermann",
      email: null,
      image: fixtures.noEmail.picture,
    });
  });

  test('an address LinkedIn marks unverified ("false") is no address: the stored user has none', async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(provider(), { adapter });
    const result = await signIn(config, "linkedin", li, {
      decision: { user: fixtures.unverified },
    });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(await adapter.getUserByEmail!("una@email.example")).toBeNull();
  });
});

describe("linkedin: provider errors end on the sign-in page", () => {
  test("the member cancels (user_cancelled_login) or access_denied", async () => {
    for (const deny of ["user_cancelled_login", "access_denied"]) {
      const { config, logger } = setup(provider());
      const result = await signIn(config, "linkedin", li, { decision: { deny } });
      expect(result.answer!.url.searchParams.get("error")).toBe(deny);
      expectFailed(result, logger);
    }
    expect(li.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("a scope LinkedIn does not know comes back as an error on the callback", async () => {
    const { config, logger } = setup(provider({ scope: "openid r_liteprofile" }));
    const result = await signIn(config, "linkedin", li);
    expect(result.answer!.url.searchParams.get("error")).toBe("invalid_scope");
    expectFailed(result, logger);
  });

  test("an invalid code at the token endpoint", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "linkedin", li, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "AQT-never-issued");
        return { ...answer, url };
      },
    });
    expect(expectFailed(result, logger)).toContain("invalid_grant");
  });

  test("a 5xx from the token endpoint", async () => {
    li.force("POST", TOKEN, { status: 502, body: "Bad Gateway" });
    const { config, logger } = setup(provider());
    expectFailed(await signIn(config, "linkedin", li), logger);
  });
});

describe("linkedin: factory", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(LinkedIn).parameter(0).toEqualTypeOf<LinkedInOptions | undefined>();
    expectTypeOf(LinkedIn().profile!).parameter(0).toEqualTypeOf<LinkedInProfile>();
    // @ts-expect-error: the scope is a string
    LinkedIn({ scope: ["openid"] });
  });

  test("OIDC at LinkedIn's issuer, client_secret_post, state; LinkedIn's blue and an inline logo", () => {
    const p = LinkedIn();
    expect(p).toMatchObject({
      id: "linkedin",
      type: "oidc",
      issuer: LINKEDIN_ISSUER,
      checks: ["state"],
      client: { token_endpoint_auth_method: "client_secret_post" },
    });
    expect(p.style).toMatchObject({ brandColor: "#0a66c2" });
    expect(p.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
