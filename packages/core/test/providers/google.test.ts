/**
 * Google end to end through `Auth()` against an imitation of Google's real origins: discovery at
 * https://accounts.google.com, `/o/oauth2/v2/auth`, `oauth2.googleapis.com/token`, the JWKS at
 * www.googleapis.com, RS256 ID tokens whose claims follow the granted scopes, the extra
 * parameters Google adds to its redirect, and a refresh token only for offline access.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Google, {
  GOOGLE_ISSUER,
  type GoogleOptions,
  type GoogleProfile,
} from "@gatehousejs/core/providers/google";
import type { Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors, signInError } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/google.js";

const AUTHORIZE = "https://accounts.google.com/o/oauth2/v2/auth";
const TOKEN = "https://oauth2.googleapis.com/token";
const USERINFO = "https://openidconnect.googleapis.com/v1/userinfo";
const JWKS = "https://www.googleapis.com/oauth2/v3/certs";
const DISCOVERY = "https://accounts.google.com/.well-known/openid-configuration";
const SCOPES = [
  "openid",
  "email",
  "profile",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/userinfo.profile",
];

let g: Imitation<fixtures.GoogleUser>;
beforeAll(async () => {
  g = await startImitation<fixtures.GoogleUser>({
    origins: [
      "https://accounts.google.com",
      "https://oauth2.googleapis.com",
      "https://openidconnect.googleapis.com",
      "https://www.googleapis.com",
    ],
    authorize: {
      url: AUTHORIZE,
      pkce: "optional",
      // Google needs no nonce for the code flow; Gatehouse sends one anyway (checked below).
      nonce: false,
      scope: { separator: " ", include: ["openid"], known: SCOPES },
      redirectUris: [`${ORIGIN}/auth/callback/google`],
      check: (params) =>
        params.has("access_type") && !/^(online|offline)$/.test(params.get("access_type")!)
          ? "access_type must be online or offline"
          : undefined,
      // Google echoes the granted scopes and adds authuser and prompt to its redirect.
      extra: (grant) => ({
        scope: grant.scopes
          .map((s) =>
            s === "email" || s === "profile" ? `https://www.googleapis.com/auth/userinfo.${s}` : s,
          )
          .join(" "),
        authuser: "0",
        prompt: "consent",
      }),
    },
    token: {
      url: TOKEN,
      auth: "client_secret_basic",
      expiresIn: 3599,
      // A refresh token only for access_type=offline.
      response: (body, grant) => {
        const { refresh_token, ...rest } = body;
        return grant.params.access_type === "offline" ? body : rest;
      },
    },
    oidc: {
      issuer: GOOGLE_ISSUER,
      alg: "RS256",
      jwksUrl: JWKS,
      userinfoUrl: USERINFO,
      claims: (grant) => ({ ...fixtures.claimsFor(grant.user, grant.scopes), azp: g.clientId }),
      metadata: {
        token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
        claims_supported: ["aud", "email", "email_verified", "exp", "family_name", "given_name"],
      },
    },
    user: fixtures.full,
  });
});
afterEach(() => {
  g.reset();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
afterAll(() => g.close());

const google = (options: GoogleOptions = {}) =>
  Google({
    clientId: g.clientId,
    clientSecret: g.clientSecret,
    [customFetch]: g.fetch,
    ...options,
  }) as Provider;

describe("the Google sign-in", () => {
  test("discovery at accounts.google.com, PKCE, state and nonce, Basic at the token endpoint, the ID token's claims", async () => {
    const { config, logger } = providerConfig(google());
    const result = await signIn(config, "google", g);

    const auth = result.authorization!;
    expect(auth.origin + auth.pathname).toBe(AUTHORIZE);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: g.clientId,
      redirect_uri: `${ORIGIN}/auth/callback/google`,
      response_type: "code",
      scope: "openid email profile",
      code_challenge_method: "S256",
      state: expect.any(String),
      nonce: expect.any(String),
    });
    expect(g.requestsTo("GET", DISCOVERY)).toHaveLength(1);
    expect(result.answer!.url.searchParams.get("authuser")).toBe("0");

    const [token] = g.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toMatch(/^Basic /);
    expect(new URLSearchParams(token!.body).get("code_verifier")).toBeTruthy();
    // The profile is the ID token's: no userinfo call.
    expect(g.requestsTo("GET", USERINFO)).toEqual([]);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Ada Lovelace",
      email: "ada.lovelace@example.com",
      image: fixtures.full.picture,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("a verified address is stored; the account is keyed by sub; no refresh token without offline access", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(google(), { adapter });
    await signIn(config, "google", g);
    const account = adapter.rows.account({
      provider: "google",
      providerAccountId: fixtures.full.sub,
    });
    expect(account).toMatchObject({ type: "oidc", id_token: expect.any(String) });
    expect(account!.refresh_token).toBeUndefined();
    expect(await adapter.getUserByEmail!("ada.lovelace@example.com")).toMatchObject({
      name: "Ada Lovelace",
    });
  });

  test("access_type=offline with prompt=consent brings a refresh token", async () => {
    const adapter = MemoryAdapter();
    const params = { scope: "openid email profile", access_type: "offline", prompt: "consent" };
    const { config } = providerConfig(google({ authorization: { params } }), { adapter });
    const { authorization } = await signIn(config, "google", g);
    expect(authorization!.searchParams.get("access_type")).toBe("offline");
    const account = adapter.rows.account({
      provider: "google",
      providerAccountId: fixtures.full.sub,
    });
    expect(account!.refresh_token).toMatch(/^rt-/);
  });

  test("an address Google marks unverified is never stored as the user's address", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(google(), { adapter });
    const { response } = await signIn(config, "google", g, {
      decision: { user: fixtures.unverified },
    });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await adapter.getUserByEmail!("unproven@example.com")).toBeNull();
  });

  test("without the email scope: no email; without name and picture: given + family name, image null", async () => {
    g.user = fixtures.noNameNoPicture;
    const provider = google({ authorization: { params: { scope: "openid profile" } } });
    const { config } = providerConfig(provider);
    const { session } = await signIn(config, "google", g);
    expect(session?.user).toEqual({ name: "Ada Lovelace", email: null, image: null });
  });

  test("the uninvoked factory in providers, credentials from the environment", async () => {
    vi.stubEnv("AUTH_GOOGLE_ID", g.clientId);
    vi.stubEnv("AUTH_GOOGLE_SECRET", g.clientSecret);
    // No [customFetch] on an uninvoked factory: the global fetch goes to the imitation.
    vi.stubGlobal("fetch", g.fetch);
    const { config, logger } = providerConfig(Google);
    const { response, session } = await signIn(config, "google", g);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user?.name).toBe("Ada Lovelace");
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("credentials from AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET", async () => {
    vi.stubEnv("AUTH_GOOGLE_ID", g.clientId);
    vi.stubEnv("AUTH_GOOGLE_SECRET", g.clientSecret);
    const { config } = providerConfig(Google({ [customFetch]: g.fetch }) as Provider);
    const { authorization, session } = await signIn(config, "google", g);
    expect(authorization!.searchParams.get("client_id")).toBe(g.clientId);
    expect(session?.user?.email).toBe("ada.lovelace@example.com");
  });
});

describe("Google's errors end on the sign-in page without a session", () => {
  const secrets = () => [g.clientSecret];

  test("the user refuses consent: error=access_denied", async () => {
    const { config, logger } = providerConfig(google());
    const result = await signIn(config, "google", g, { decision: { deny: true } });
    expectFailedSignIn(result, logger, { secrets: secrets() });
    expect(g.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code: invalid_grant", async () => {
    const { config, logger } = providerConfig(google());
    const result = await signIn(config, "google", g, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "4/0AeanS0b-never-issued");
        return { ...answer, url };
      },
    });
    expect(expectFailedSignIn(result, logger, { secrets: secrets() })).toContain("invalid_grant");
  });

  test("a 5xx from the token endpoint", async () => {
    g.force("POST", TOKEN, { status: 503, body: { error: "temporarily_unavailable" } });
    const { config, logger } = providerConfig(google());
    expectFailedSignIn(await signIn(config, "google", g), logger, { secrets: secrets() });
  });

  test("an ID token for another client is refused", async () => {
    const forged = await g.signJwt({
      iss: GOOGLE_ISSUER,
      aud: "someone-else.apps.googleusercontent.com",
      sub: fixtures.full.sub,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    const { config, logger } = providerConfig(google());
    g.force("POST", TOKEN, {
      body: { access_token: "at-forged-0123456789", token_type: "Bearer", id_token: forged },
    });
    expectFailedSignIn(await signIn(config, "google", g), logger, { secrets: secrets() });
  });

  test("discovery failing: the sign-in never leaves for Google and ends on the sign-in page", async () => {
    g.force("GET", DISCOVERY, { status: 503, body: "unavailable" });
    // A fetch of its own: discovery is cached per fetch function, and g.fetch has discovered.
    const { config } = providerConfig(
      google({ [customFetch]: (input, init) => g.fetch(input, init) }),
    );
    const result = await signIn(config, "google", g);
    expect(result.answer).toBeUndefined();
    expect(result.response.status).toBe(302);
    expect(result.response.headers.get("location")).toBe(signInError("OAuthSignin"));
  });
});

describe("profile mapping (fixtures from Google's OpenID Connect claims)", () => {
  const provider = Google();
  const token = (user: fixtures.GoogleUser): GoogleProfile => ({
    ...user,
    iss: GOOGLE_ISSUER,
    aud: "client",
    iat: 1,
    exp: 2,
  });

  test("a full profile, and a Workspace user", () => {
    expect(provider.profile!(token(fixtures.full), {})).toEqual({
      id: "110169484474386276334",
      name: "Ada Lovelace",
      email: "ada.lovelace@example.com",
      image: fixtures.full.picture,
    });
    expect(provider.profile!(token(fixtures.workspace), {})).toMatchObject({
      email: "ada@analytical.example",
    });
  });

  test("no email claims; no name or picture", () => {
    const { email: _e, email_verified: _v, ...noEmail } = fixtures.full;
    expect(provider.profile!(token(noEmail), {})).toMatchObject({ email: null });
    expect(provider.profile!(token(fixtures.noNameNoPicture), {})).toMatchObject({
      name: "Ada Lovelace",
      image: null,
    });
    expect(provider.profile!(token({ sub: "1" }), {})).toEqual({
      id: "1",
      name: null,
      email: null,
      image: null,
    });
  });

  test("options and profile are typed; the issuer is Google's; Google's colours and an inline logo", () => {
    expectTypeOf(Google).parameter(0).toEqualTypeOf<GoogleOptions | undefined>();
    expectTypeOf(provider.profile!).parameter(0).toEqualTypeOf<GoogleProfile>();
    // @ts-expect-error: the issuer is a string
    Google({ issuer: new URL(GOOGLE_ISSUER) });
    expect(provider.issuer).toBe("https://accounts.google.com");
    expect(provider.type).toBe("oidc");
    expect(provider.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
