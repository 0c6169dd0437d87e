/**
 * Sign in with Apple through `Auth()` against an imitation of `https://appleid.apple.com`: the
 * authorization request with `response_mode=form_post`, the callback as a cross-site form POST
 * (only `SameSite=None` cookies come along), the token endpoint that accepts only an ES256 client
 * secret signed by the team's key, and an identity token with Apple's claims. Also the client
 * secret maker on its own (claims, header, caching, renewal) and the profile mapping.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Apple, {
  APPLE_ISSUER,
  APPLE_MAX_SECRET_TTL,
  type AppleOptions,
  type AppleProfile,
  createAppleClientSecret,
} from "@gatehousejs/core/providers/apple";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import {
  decodeProtectedHeader,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importSPKI,
  jwtVerify,
} from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, setCookies } from "../helpers.js";
import {
  deliver,
  expectNoSessionCookie,
  loggedErrors,
  postSignIn,
  SESSION_COOKIE,
  sessionOf,
  signInError,
} from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import {
  type Grant,
  type Imitation,
  type ProviderAnswer,
  startImitation,
} from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/apple.js";

const AUTHORIZE = "https://appleid.apple.com/auth/authorize";
const TOKEN = "https://appleid.apple.com/auth/token";
const KEYS = "https://appleid.apple.com/auth/keys";
const DISCOVERY = "https://appleid.apple.com/.well-known/openid-configuration";
const TEAM_ID = "TEAM123456";
const KEY_ID = "KEY7654321";
const CLIENT_ID = "com.example.web";

type AppleAccount = Partial<AppleProfile> & { sub: string };

let apple: Imitation<AppleAccount>;
let privateKeyPem: string;
let publicKey: CryptoKey;
/** The client secrets the token endpoint accepted, decoded. */
const acceptedSecrets: { header: Record<string, unknown>; claims: Record<string, unknown> }[] = [];
/** Grants by access token, to put Apple's identity token into the token response. */
const grants = new Map<string, Grant<AppleAccount>>();

/**
 * Apple's token endpoint: the client secret must be an ES256 JWT signed by the team's key, with
 * the key id in `kid`, `iss` the team, `sub` the client, `aud` Apple, and at most 6 months of life.
 */
async function checkClientSecret(form: URLSearchParams): Promise<true | string> {
  if (form.get("client_id") !== CLIENT_ID) return "client_id is missing or unknown";
  const secret = form.get("client_secret");
  if (!secret) return "client_secret is missing";
  try {
    const header = decodeProtectedHeader(secret);
    if (header.alg !== "ES256" || header.kid !== KEY_ID) return "wrong alg or kid";
    const { payload } = await jwtVerify(secret, publicKey, {
      algorithms: ["ES256"],
      issuer: TEAM_ID,
      subject: CLIENT_ID,
      audience: APPLE_ISSUER,
    });
    if (typeof payload.iat !== "number" || typeof payload.exp !== "number") return "no iat/exp";
    if (payload.exp - payload.iat > APPLE_MAX_SECRET_TTL) return "expires too late";
    acceptedSecrets.push({ header: { ...header }, claims: { ...payload } });
    return true;
  } catch (error) {
    return `client_secret refused: ${(error as Error).name}`;
  }
}

beforeAll(async () => {
  const keys = await generateKeyPair("ES256", { extractable: true });
  privateKeyPem = await exportPKCS8(keys.privateKey);
  publicKey = await importSPKI(await exportSPKI(keys.publicKey), "ES256");
  apple = await startImitation<AppleAccount>({
    origins: [APPLE_ISSUER],
    clientId: CLIENT_ID,
    authorize: {
      url: AUTHORIZE,
      responseMode: "form_post",
      state: true,
      nonce: true,
      scope: { known: ["name", "email", "openid"] },
      redirectUris: [`${ORIGIN}/auth/callback/apple`],
    },
    token: {
      url: TOKEN,
      auth: ({ form, basic }) =>
        basic ? "Apple takes the secret in the body" : checkClientSecret(form),
      response: (body, grant) => {
        grants.set(body.access_token as string, grant);
        return body;
      },
    },
    oidc: { issuer: APPLE_ISSUER, jwksUrl: KEYS },
    user: fixtures.shared as AppleAccount,
  });
});
afterEach(() => {
  apple.reset();
  acceptedSecrets.length = 0;
  grants.clear();
  vi.unstubAllEnvs();
});
afterAll(() => apple.close());

/**
 * The imitation's fetch, plus Apple's identity token in every token response: Apple sends one
 * whatever the scope (the shared imitation adds one only for `openid`).
 */
const appleFetch: typeof fetch = async (input, init) => {
  const response = await apple.fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (`${url.origin}${url.pathname}` !== TOKEN || !response.ok) return response;
  const body = (await response.json()) as Record<string, unknown>;
  const grant = grants.get(body.access_token as string);
  if (grant) {
    const now = Math.floor(Date.now() / 1000);
    body.id_token = await apple.signJwt({
      ...grant.user,
      iss: APPLE_ISSUER,
      aud: CLIENT_ID,
      iat: now,
      exp: now + 600,
      ...(grant.nonce ? { nonce: grant.nonce } : {}),
    });
  }
  return Response.json(body, { status: response.status });
};

const keyOptions = () => ({ teamId: TEAM_ID, keyId: KEY_ID, privateKey: privateKeyPem });

function provider(extra: AppleOptions = {}): OAuthConfig {
  return Apple({
    clientId: CLIENT_ID,
    ...keyOptions(),
    [customFetch]: appleFetch,
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

const withUserField = (user: unknown = fixtures.firstSignInUser) => ({
  extra: { user: JSON.stringify(user) },
});

/**
 * The browser's part of a cross-site form POST: of the cookies the site set, only those marked
 * `SameSite=None; Secure` are sent with the POST from appleid.apple.com.
 */
function crossSiteJar(jar: Jar, signin: Response): Jar {
  const sent = new Jar();
  const set = setCookies(signin);
  for (const [name, value] of jar.cookies) {
    const raw = set.get(name)?.raw ?? "";
    if (/;\s*SameSite=None/i.test(raw) && /;\s*Secure/i.test(raw)) sent.cookies.set(name, value);
  }
  return sent;
}

describe("apple: the sign-in", () => {
  test("asks for name and email with response_mode=form_post, state and nonce; the form POST signs in", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "apple", apple, { decision: withUserField() });

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("response_mode")).toBe("form_post");
    expect(auth.searchParams.get("scope")).toBe("name email");
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(auth.searchParams.get("nonce")).toBeTruthy();
    expect(auth.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/apple`);
    expect(result.answer!.form).toBeDefined();
    expect(apple.requestsTo("GET", DISCOVERY)).toHaveLength(1);

    expect(result.response.status).toBe(302);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Jane Appleseed",
      email: fixtures.shared.email,
      image: null,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("the callback works with only the cookies a browser sends on a cross-site POST (SameSite=None; Secure)", async () => {
    const { config } = setup(provider());
    const jar = new Jar();
    const signin = await postSignIn(config, jar, "apple");
    expect(signin.status).toBe(302);
    for (const [name, { raw }] of setCookies(signin)) {
      expect(raw, `${name} crosses sites`).toMatch(/;\s*SameSite=None/i);
      expect(raw, `${name} is Secure`).toMatch(/;\s*Secure/i);
    }
    const answer = await apple.authorize(signin.headers.get("location")!, withUserField());
    const browser = crossSiteJar(jar, signin);
    expect([...browser.cookies.keys()].sort()).toEqual(
      ["authjs.callback-url", "authjs.nonce", "authjs.state"].sort(),
    );
    const response = await deliver(config, browser, answer);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(true);
    // The session cookie is a first-party cookie: Lax, sent on the redirect back to the site.
    expect(setCookies(response).get(SESSION_COOKIE)?.raw).toMatch(/SameSite=Lax/i);
    expect((await sessionOf(config, browser))?.user?.name).toBe("Jane Appleseed");
  });

  test("the token request carries an ES256 client secret for the team, key and client; it is reused, not re-signed", async () => {
    const { config } = setup(provider());
    await signIn(config, "apple", apple);
    await signIn(config, "apple", apple);
    expect(acceptedSecrets).toHaveLength(2);
    const [first, second] = acceptedSecrets;
    expect(first!.header).toMatchObject({ alg: "ES256", kid: KEY_ID });
    expect(first!.claims).toMatchObject({ iss: TEAM_ID, sub: CLIENT_ID, aud: APPLE_ISSUER });
    expect(second!.claims.iat).toBe(first!.claims.iat);
    const [token] = apple.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(token!.body).get("client_secret")).not.toContain("gatehouse:");
  });

  test("the key can come from AUTH_APPLE_TEAM_ID, AUTH_APPLE_KEY_ID and AUTH_APPLE_PRIVATE_KEY (escaped newlines), the id from AUTH_APPLE_ID", async () => {
    vi.stubEnv("AUTH_APPLE_ID", CLIENT_ID);
    vi.stubEnv("AUTH_APPLE_TEAM_ID", TEAM_ID);
    vi.stubEnv("AUTH_APPLE_KEY_ID", KEY_ID);
    vi.stubEnv("AUTH_APPLE_PRIVATE_KEY", privateKeyPem.replace(/\n/g, "\\n"));
    const { config } = setup(Apple({ [customFetch]: appleFetch }) as unknown as OAuthConfig);
    const result = await signIn(config, "apple", apple);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(acceptedSecrets).toHaveLength(1);
  });

  test("a ready-made secret in AUTH_APPLE_SECRET is sent as it is", async () => {
    const ready = await createAppleClientSecret({ ...keyOptions(), clientId: CLIENT_ID })();
    vi.stubEnv("AUTH_APPLE_ID", CLIENT_ID);
    vi.stubEnv("AUTH_APPLE_SECRET", ready);
    const { config } = setup(Apple({ [customFetch]: appleFetch }) as unknown as OAuthConfig);
    const result = await signIn(config, "apple", apple);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    const [token] = apple.requestsTo("POST", TOKEN);
    expect(new URLSearchParams(token!.body).get("client_secret")).toBe(ready);
  });

  test("the name Apple sends on the first sign-in only is kept by the stored user", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(provider(), { adapter });
    const first = await signIn(config, "apple", apple, { decision: withUserField() });
    expect(first.session?.user?.name).toBe("Jane Appleseed");
    const stored = await adapter.getUserByEmail!(fixtures.shared.email!);
    expect(stored?.name).toBe("Jane Appleseed");
    // Later sign-ins carry no `user` field; the user keeps the name.
    const later = await signIn(config, "apple", apple);
    expect(later.answer!.form!.user).toBeUndefined();
    expect(later.session?.user?.name).toBe("Jane Appleseed");
  });

  test("the user field never supplies the address: the identity token's email is used", async () => {
    const { config } = setup(provider());
    const result = await signIn(config, "apple", apple, {
      decision: withUserField({ name: { firstName: "Mallory" }, email: "victim@example.com" }),
    });
    expect(result.session?.user).toMatchObject({ name: "Mallory", email: fixtures.shared.email });
  });

  test("a user field that is not JSON is ignored: the sign-in goes on without a name", async () => {
    const { config } = setup(provider());
    const result = await signIn(config, "apple", apple, { decision: { extra: { user: "{nope" } } });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.name ?? null).toBeNull();
  });

  test("a private relay address signs in as the user's address; an unverified one is not stored", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(provider(), { adapter });
    const relay = await signIn(config, "apple", apple, {
      decision: { user: fixtures.privateRelay as AppleAccount },
    });
    expect(relay.session?.user?.email).toBe(fixtures.privateRelay.email);
    expect(await adapter.getUserByEmail!(fixtures.privateRelay.email!)).not.toBeNull();

    await signIn(config, "apple", apple, {
      decision: { user: fixtures.unverified as AppleAccount },
    });
    expect(await adapter.getUserByEmail!(fixtures.unverified.email!)).toBeNull();
  });

  test("no email scope: the user signs in with email null", async () => {
    const { config } = setup(provider({ scope: "name" }));
    const result = await signIn(config, "apple", apple, {
      decision: { user: fixtures.noEmail as AppleAccount },
    });
    expect(result.authorization!.searchParams.get("scope")).toBe("name");
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.email ?? null).toBeNull();
  });
});

describe("apple: provider errors end on the sign-in page", () => {
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
    expect(lines[0]).not.toContain("PRIVATE KEY");
    expect(lines[0]).not.toMatch(/eyJ[\w-]{20,}/);
  }

  test("the user cancels (user_cancelled_authorize) or access_denied", async () => {
    for (const deny of ["user_cancelled_authorize", "access_denied"]) {
      const { config, logger } = setup(provider());
      const result = await signIn(config, "apple", apple, { decision: { deny } });
      expect(result.answer!.form!.error).toBe(deny);
      expectFailed(result, logger);
    }
    expect(apple.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code (invalid_grant)", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "apple", apple, {
      tamper: (answer: ProviderAnswer) => ({
        ...answer,
        form: { ...answer.form!, code: "c0ffee.0.never.issued" },
      }),
    });
    expect(apple.requestsTo("POST", TOKEN)).toHaveLength(1);
    expectFailed(result, logger);
  });

  test("a secret signed by another key is refused (invalid_client)", async () => {
    const other = await generateKeyPair("ES256", { extractable: true });
    const { config, logger } = setup(provider({ privateKey: await exportPKCS8(other.privateKey) }));
    expectFailed(await signIn(config, "apple", apple), logger);
  });

  test("a 5xx from the token endpoint", async () => {
    apple.force("POST", TOKEN, { status: 503, body: "Service Unavailable" });
    const { config, logger } = setup(provider());
    expectFailed(await signIn(config, "apple", apple), logger);
  });

  test("a private key that is not a PKCS#8 PEM fails the sign-in without showing the key", async () => {
    const { config, logger } = setup(
      provider({ privateKey: "-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END PRIVATE KEY-----" }),
    );
    expectFailed(await signIn(config, "apple", apple), logger);
    expect(apple.requestsTo("POST", TOKEN)).toEqual([]);
  });
});

describe("apple: the client secret maker", () => {
  test("signs ES256 with kid, iss = team, sub = client, aud = Apple, and exp = iat + ttl", async () => {
    const secret = createAppleClientSecret({ ...keyOptions(), clientId: CLIENT_ID, ttl: 3600 });
    const jwt = await secret();
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: "ES256", kid: KEY_ID });
    const { payload } = await jwtVerify(jwt, publicKey, {
      issuer: TEAM_ID,
      subject: CLIENT_ID,
      audience: APPLE_ISSUER,
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
  });

  test("is cached, and renewed once less than a tenth of its life is left", async () => {
    let now = Date.UTC(2026, 10, 22, 12);
    const secret = createAppleClientSecret({
      ...keyOptions(),
      clientId: CLIENT_ID,
      ttl: 86_400,
      now: () => now,
    });
    const [a, b] = await Promise.all([secret(), secret()]);
    expect(b).toBe(a);
    now += 86_400_000 * 0.89;
    expect(await secret()).toBe(a);
    now += 86_400_000 * 0.02; // 91% of its life gone
    const renewed = await secret();
    expect(renewed).not.toBe(a);
    const { payload } = await jwtVerify(renewed, publicKey, { currentDate: new Date(now) });
    expect(payload.iat).toBe(Math.floor(now / 1000));
    expect(await secret()).toBe(renewed);
  });

  test("refuses a lifetime beyond Apple's 6 months", () => {
    const make = (ttl: number) =>
      createAppleClientSecret({ ...keyOptions(), clientId: CLIENT_ID, ttl });
    expect(() => make(APPLE_MAX_SECRET_TTL + 1)).toThrow(RangeError);
    expect(() => make(30)).toThrow(RangeError);
    expect(() => make(APPLE_MAX_SECRET_TTL)).not.toThrow();
    // The factory reports it when the configuration is written.
    expect(() => Apple({ clientSecretTtl: 200 * 86_400 })).toThrow(RangeError);
  });
});

describe("apple: factory and profile", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Apple).parameter(0).toEqualTypeOf<AppleOptions | undefined>();
    expectTypeOf(Apple().profile!).parameter(0).toEqualTypeOf<AppleProfile>();
    // @ts-expect-error: the team id is a string
    Apple({ teamId: 42 });
  });

  test("maps the identity token and the first sign-in's name; never an avatar", async () => {
    const p = Apple();
    expect(await p.profile!({ ...fixtures.shared, user: fixtures.firstSignInUser }, {})).toEqual({
      id: fixtures.shared.sub,
      name: "Jane Appleseed",
      email: fixtures.shared.email,
      image: null,
    });
    expect(await p.profile!(fixtures.privateRelay, {})).toEqual({
      id: fixtures.privateRelay.sub,
      name: null,
      email: fixtures.privateRelay.email,
      image: null,
    });
    expect(await p.profile!(fixtures.noEmail, {})).toMatchObject({ email: null, name: null });
  });

  test("is an OIDC provider at Apple's issuer with client_secret_post; the button has an inline logo", () => {
    const p = Apple();
    expect(p).toMatchObject({
      id: "apple",
      type: "oidc",
      issuer: APPLE_ISSUER,
      client: { token_endpoint_auth_method: "client_secret_post" },
      checks: ["nonce", "state"],
    });
    expect(p.style?.logo).toMatch(/^data:image\/svg\+xml/);
    expect(p.clientSecret).toBeUndefined();
    expect(Apple({ clientSecret: "ready" }).clientSecret).toBe("ready");
  });
});
