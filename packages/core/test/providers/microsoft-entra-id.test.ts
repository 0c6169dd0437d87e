/**
 * Microsoft Entra ID through `Auth()` against an imitation of `https://login.microsoftonline.com`
 * and Microsoft Graph: discovery per tenant (`common` and `organizations` name the
 * `{tenantid}` template, `consumers` the personal-accounts tenant), PKCE, state and nonce, the
 * secret in the token request's body, ID tokens whose `iss` must be the template with their own
 * `tid`, and the optional profile photo from Graph as a `data:` URL.
 */
import { customFetch } from "@gatehousejs/core";
import MicrosoftEntraID, {
  entraIssuer,
  entraPhoto,
  type MicrosoftEntraIDOptions,
  type MicrosoftEntraIDProfile,
} from "@gatehousejs/core/providers/microsoft-entra-id";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import { decodeJwt } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import {
  discoveredIssuerMatches,
  forTenantToken,
  issuerForToken,
} from "../../src/lib/oauth/tenant.js";
import { ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import { expectNoSessionCookie, loggedErrors, signInError } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import { type Imitation, type Reply, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/microsoft-entra-id.js";

const LOGIN = "https://login.microsoftonline.com";
const TEMPLATE = `${LOGIN}/{tenantid}/v2.0`;
const AUTHORIZE = `${LOGIN}/common/oauth2/v2.0/authorize`;
const TOKEN = `${LOGIN}/common/oauth2/v2.0/token`;
const KEYS = `${LOGIN}/common/discovery/v2.0/keys`;
const discoveryOf = (tenant: string) => `${LOGIN}/${tenant}/v2.0/.well-known/openid-configuration`;
const PHOTO_48 = "https://graph.microsoft.com/v1.0/me/photos/48x48/$value";
/** A tiny GIF-like body (ASCII, so it crosses the imitation unchanged). */
const PHOTO = "GIF89a-gatehouse-test-photo";

type Account = Record<string, unknown> & { sub: string };

let idp: Imitation<Account>;
/** The `iss` each ID token gets (Entra: the tenant's issuer); a test may forge another. */
let issuerOf: (claims: Record<string, unknown>) => string;
let photo: Reply;
const defaultIssuer = (claims: Record<string, unknown>) =>
  entraIssuer(typeof claims.tid === "string" ? claims.tid : "missing-tid");

beforeAll(async () => {
  idp = await startImitation<Account>({
    origins: [LOGIN, "https://graph.microsoft.com"],
    authorize: {
      url: AUTHORIZE,
      pkce: "required",
      state: true,
      nonce: true,
      scope: {
        include: ["openid"],
        known: ["openid", "profile", "email", "offline_access", "User.Read"],
      },
      redirectUris: [`${ORIGIN}/auth/callback/microsoft-entra-id`],
    },
    token: {
      url: TOKEN,
      auth: "client_secret_post",
      // Entra's error body: RFC 6749 fields plus AADSTS codes and trace ids.
      error: (error, description, status) => ({
        status,
        body: {
          error,
          error_description: `AADSTS70000: ${description}`,
          error_codes: [70000],
          timestamp: "2026-11-22 20:00:00Z",
          trace_id: "0f0e0d0c-0000-0000-0000-000000000000",
          correlation_id: "0a0b0c0d-0000-0000-0000-000000000000",
        },
      }),
    },
    oidc: {
      issuer: TEMPLATE,
      discoveryUrl: discoveryOf("common"),
      jwksUrl: KEYS,
      userinfoUrl: "https://graph.microsoft.com/oidc/userinfo",
    },
    user: fixtures.work as Account,
  });
  // The other tenants' discovery documents, as Microsoft writes their issuers.
  const common = (await (await idp.fetch(discoveryOf("common"))).json()) as Record<string, unknown>;
  const serve = (tenant: string, issuer: string) =>
    idp.route("GET", discoveryOf(tenant), () => ({ body: { ...common, issuer } }), {
      bearer: false,
    });
  serve("organizations", TEMPLATE);
  serve("consumers", entraIssuer(fixtures.CONSUMERS_TENANT));
  serve(fixtures.TENANT_A, entraIssuer(fixtures.TENANT_A));
  idp.route("GET", PHOTO_48, () => photo);
  idp.reset();
});
afterEach(() => {
  idp.reset();
  vi.unstubAllEnvs();
});
afterAll(() => idp.close());

function resetWorld() {
  issuerOf = defaultIssuer;
  photo = { headers: { "content-type": "image/gif" }, body: PHOTO };
}
resetWorld();
afterEach(resetWorld);

/** The imitation's fetch, with each ID token re-signed to carry `issuerOf(claims)` as `iss`. */
const entraFetch: typeof fetch = async (input, init) => {
  const response = await idp.fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (`${url.origin}${url.pathname}` !== TOKEN || !response.ok) return response;
  const body = (await response.json()) as Record<string, unknown>;
  if (typeof body.id_token === "string") {
    const claims = decodeJwt(body.id_token) as Record<string, unknown>;
    body.id_token = await idp.signJwt({ ...claims, iss: issuerOf(claims) });
  }
  return Response.json(body, { status: response.status });
};

function provider(extra: MicrosoftEntraIDOptions = {}): OAuthConfig {
  return MicrosoftEntraID({
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    // A fresh function each time: discovery is cached per fetch function and issuer.
    [customFetch]: (input: RequestInfo | URL, init?: RequestInit) => entraFetch(input, init),
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
  error = "OAuthCallbackError",
) {
  expect(result.response.status).toBe(302);
  expect(result.response.headers.get("location")).toBe(signInError(error));
  expectNoSessionCookie(result.response);
  expect(result.session).toBeNull();
  const lines = loggedErrors(logger);
  expect(lines, lines.join("\n")).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${error}: `));
  expect(lines[0]).not.toContain(idp.clientSecret);
  return lines[0]!;
}

describe("microsoft-entra-id: the sign-in", () => {
  test("common: discovers the {tenantid} template, signs in with PKCE, state and nonce, the secret in the body, and the Graph photo", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "microsoft-entra-id", idp);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("openid profile email User.Read");
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("nonce")).toBeTruthy();
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(idp.requestsTo("GET", discoveryOf("common"))).toHaveLength(1);
    const [token] = idp.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(token!.body).get("client_secret")).toBe(idp.clientSecret);
    const [photoCall] = idp.requestsTo("GET", PHOTO_48);
    expect(photoCall!.headers.authorization).toMatch(/^Bearer at-/);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Megan Bowen",
      email: "meganb@contoso.example",
      image: `data:image/gif;base64,${Buffer.from(PHOTO).toString("base64")}`,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("common: any tenant signs in when its token's iss is the template with its own tid", async () => {
    const { config } = setup(provider());
    const other = { ...fixtures.work, sub: "other-tenant-user", tid: fixtures.TENANT_B };
    const result = await signIn(config, "microsoft-entra-id", idp, { decision: { user: other } });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.name).toBe("Megan Bowen");
  });

  test("common: a token whose iss names another tenant than its tid is refused", async () => {
    issuerOf = () => entraIssuer(fixtures.TENANT_A);
    const { config, logger } = setup(provider());
    const forged = { ...fixtures.work, tid: fixtures.TENANT_B };
    const line = expectFailed(
      await signIn(config, "microsoft-entra-id", idp, { decision: { user: forged } }),
      logger,
    );
    expect(line).toMatch(/iss/);
  });

  test("common: a token without a tid, or whose iss is the template itself or another host, is refused", async () => {
    const cases: [Account, (claims: Record<string, unknown>) => string][] = [
      [fixtures.noTenant as Account, () => entraIssuer(fixtures.TENANT_A)],
      [fixtures.work as Account, () => TEMPLATE],
      [fixtures.work as Account, (c) => `https://evil.example/${c.tid}/v2.0`],
    ];
    for (const [user, forge] of cases) {
      issuerOf = forge;
      const { config, logger } = setup(provider());
      expectFailed(await signIn(config, "microsoft-entra-id", idp, { decision: { user } }), logger);
    }
  });

  test("organizations also uses the template; consumers and a tenant id want their own issuer exactly", async () => {
    const org = setup(provider({ tenantId: "organizations" }));
    const viaOrg = await signIn(org.config, "microsoft-entra-id", idp);
    expect(viaOrg.response.headers.get("location")).toBe(ORIGIN);
    expect(idp.requestsTo("GET", discoveryOf("organizations"))).toHaveLength(1);

    const consumers = setup(provider({ tenantId: "consumers" }));
    const personal = await signIn(consumers.config, "microsoft-entra-id", idp, {
      decision: { user: fixtures.personal as Account },
    });
    expect(personal.response.headers.get("location")).toBe(ORIGIN);
    expect(personal.session?.user?.email).toBe("pat@outlook.example");
    // A work account cannot come through the consumers issuer.
    const refused = setup(provider({ tenantId: "consumers" }));
    expectFailed(await signIn(refused.config, "microsoft-entra-id", idp), refused.logger);

    const single = setup(provider({ issuer: entraIssuer(fixtures.TENANT_A) }));
    const viaTenant = await signIn(single.config, "microsoft-entra-id", idp);
    expect(viaTenant.response.headers.get("location")).toBe(ORIGIN);
    const wrongTenant = setup(provider({ issuer: entraIssuer(fixtures.TENANT_A) }));
    expectFailed(
      await signIn(wrongTenant.config, "microsoft-entra-id", idp, {
        decision: { user: { ...fixtures.work, tid: fixtures.TENANT_B } as Account },
      }),
      wrongTenant.logger,
    );
  });

  test("a discovery document naming an unrelated issuer stops the sign-in before the redirect", async () => {
    const common = (await (await idp.fetch(discoveryOf("common"))).json()) as object;
    for (const issuer of ["https://evil.example/{tenantid}/v2.0", `${LOGIN}/{tenantid}/v1.0`]) {
      idp.force("GET", discoveryOf("common"), { body: { ...common, issuer } }, 1);
      const { config, logger } = setup(provider());
      const result = await signIn(config, "microsoft-entra-id", idp);
      expect(result.answer).toBeUndefined();
      expect(result.response.headers.get("location")).toBe(signInError("OAuthSignin"));
      expect(loggedErrors(logger)).toHaveLength(1);
    }
  });

  test("id, secret and issuer come from AUTH_MICROSOFT_ENTRA_ID_ID, _SECRET and _ISSUER; without an issuer the tenant is common", async () => {
    vi.stubEnv("AUTH_MICROSOFT_ENTRA_ID_ID", idp.clientId);
    vi.stubEnv("AUTH_MICROSOFT_ENTRA_ID_SECRET", idp.clientSecret);
    vi.stubEnv("AUTH_MICROSOFT_ENTRA_ID_ISSUER", entraIssuer(fixtures.TENANT_A));
    const fromEnv = setup(
      MicrosoftEntraID({
        [customFetch]: (input: RequestInfo | URL, init?: RequestInit) => entraFetch(input, init),
      }) as unknown as OAuthConfig,
    );
    const result = await signIn(fromEnv.config, "microsoft-entra-id", idp);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(idp.requestsTo("GET", discoveryOf(fixtures.TENANT_A))).toHaveLength(1);

    vi.stubEnv("AUTH_MICROSOFT_ENTRA_ID_ISSUER", "");
    expect(MicrosoftEntraID().issuer).toBe(`${LOGIN}/common/v2.0`);
  });

  test("a user without an email signs in with email null; Entra's email is no proven address", async () => {
    const { config } = setup(provider());
    const result = await signIn(config, "microsoft-entra-id", idp, {
      decision: { user: fixtures.noEmail as Account },
    });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.email ?? null).toBeNull();
    expect(result.session?.user?.name).toBe("Alex Wilber");
  });
});

describe("microsoft-entra-id: the photo is optional", () => {
  const failures: [string, Reply][] = [
    ["no photo (404)", { status: 404, body: { error: { code: "ImageNotFound" } } }],
    ["a 5xx", { status: 503, body: "busy" }],
    ["not an image", { headers: { "content-type": "text/html" }, body: "<script>" }],
    ["too large", { headers: { "content-type": "image/jpeg" }, body: "x".repeat(70_000) }],
  ];
  for (const [what, reply] of failures) {
    test(`${what}: the sign-in goes on with image null`, async () => {
      photo = reply;
      const { config, logger } = setup(provider());
      const result = await signIn(config, "microsoft-entra-id", idp);
      expect(result.response.headers.get("location")).toBe(ORIGIN);
      expect(result.session?.user).toMatchObject({ name: "Megan Bowen", image: null });
      expect(loggedErrors(logger)).toEqual([]);
    });
  }

  test("a failing network: image null; profilePhotoSize false makes no call; another size asks for it", async () => {
    const refusing: typeof fetch = async () => {
      throw new TypeError("fetch failed");
    };
    expect(await entraPhoto("at-1", 48, refusing)).toBeNull();
    expect(await entraPhoto(undefined, 48, refusing)).toBeNull();

    const none = setup(provider({ profilePhotoSize: false }));
    const result = await signIn(none.config, "microsoft-entra-id", idp);
    expect(result.session?.user?.image ?? null).toBeNull();
    expect(idp.requestsTo("GET", PHOTO_48)).toEqual([]);

    const PHOTO_96 = "https://graph.microsoft.com/v1.0/me/photos/96x96/$value";
    idp.route("GET", PHOTO_96, () => ({ headers: { "content-type": "image/png" }, body: "PNG" }));
    const big = setup(provider({ profilePhotoSize: 96 }));
    const with96 = await signIn(big.config, "microsoft-entra-id", idp);
    expect(with96.session?.user?.image).toBe("data:image/png;base64,UE5H");
  });
});

describe("microsoft-entra-id: provider errors end on the sign-in page", () => {
  test("access_denied on the callback", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "microsoft-entra-id", idp, { decision: { deny: true } });
    expect(result.answer!.url.searchParams.get("error")).toBe("access_denied");
    expectFailed(result, logger);
    expect(idp.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code (invalid_grant with AADSTS codes)", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "microsoft-entra-id", idp, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "0.AAAA-never-issued");
        return { ...answer, url };
      },
    });
    const line = expectFailed(result, logger);
    expect(line).toContain("invalid_grant");
  });

  test("a 5xx from the token endpoint", async () => {
    idp.force("POST", TOKEN, { status: 500, body: "Internal Server Error" });
    const { config, logger } = setup(provider());
    expectFailed(await signIn(config, "microsoft-entra-id", idp), logger);
  });
});

describe("microsoft-entra-id: factory", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(MicrosoftEntraID)
      .parameter(0)
      .toEqualTypeOf<MicrosoftEntraIDOptions | undefined>();
    expectTypeOf(MicrosoftEntraID().profile!).parameter(0).toEqualTypeOf<MicrosoftEntraIDProfile>();
    // @ts-expect-error: Graph has no 50×50 photo
    MicrosoftEntraID({ profilePhotoSize: 50 });
  });

  test("the tenant option builds the issuer; the button has Microsoft's colours and an inline logo", () => {
    expect(MicrosoftEntraID({ tenantId: fixtures.TENANT_A }).issuer).toBe(
      `${LOGIN}/${fixtures.TENANT_A}/v2.0`,
    );
    const p = MicrosoftEntraID({ issuer: `${LOGIN}/consumers/v2.0` });
    expect(p).toMatchObject({
      id: "microsoft-entra-id",
      type: "oidc",
      issuer: `${LOGIN}/consumers/v2.0`,
      client: { token_endpoint_auth_method: "client_secret_post" },
    });
    expect(p.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});

describe("multi-tenant issuers (lib/oauth/tenant.ts)", () => {
  const unsigned = (claims: object) =>
    `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

  test("a tenant alias may discover the {tenantid} template or a tenant's issuer; nothing else", () => {
    const common = `${LOGIN}/common/v2.0`;
    expect(discoveredIssuerMatches(common, common)).toBe(true);
    expect(discoveredIssuerMatches(common, TEMPLATE)).toBe(true);
    expect(
      discoveredIssuerMatches(`${LOGIN}/consumers/v2.0`, entraIssuer(fixtures.CONSUMERS_TENANT)),
    ).toBe(true);
    expect(discoveredIssuerMatches(`${LOGIN}/Organizations/v2.0`, TEMPLATE)).toBe(true);
    for (const named of [
      "https://evil.example/{tenantid}/v2.0",
      `${LOGIN}/{tenantid}/v1.0`,
      `${LOGIN}/{tenantid}/v2.0/extra`,
      `${LOGIN}/not-a-tenant-id/v2.0`,
      `http://login.microsoftonline.com/{tenantid}/v2.0`,
    ]) {
      expect(discoveredIssuerMatches(common, named), named).toBe(false);
    }
    // A tenant id is no alias: its discovery must name exactly its own issuer.
    expect(discoveredIssuerMatches(entraIssuer(fixtures.TENANT_A), TEMPLATE)).toBe(false);
    expect(
      discoveredIssuerMatches(
        "https://idp.example/realms/x",
        "https://idp.example/realms/{tenantid}",
      ),
    ).toBe(false);
  });

  test("an ID token must name the template with its own tid; a missing or odd tid gets the template", () => {
    expect(issuerForToken(TEMPLATE, unsigned({ tid: fixtures.TENANT_B }))).toBe(
      entraIssuer(fixtures.TENANT_B),
    );
    expect(issuerForToken(TEMPLATE, unsigned({}))).toBe(TEMPLATE);
    expect(issuerForToken(TEMPLATE, unsigned({ tid: "../evil" }))).toBe(TEMPLATE);
    expect(issuerForToken(TEMPLATE, "not a jwt")).toBe(TEMPLATE);
    expect(issuerForToken(TEMPLATE, undefined)).toBe(TEMPLATE);
  });

  test("forTenantToken leaves other issuers and failed responses alone, and keeps the body readable", async () => {
    const as = { issuer: "https://idp.example" };
    const plain = new Response("{}");
    expect(await forTenantToken(as, plain)).toEqual({ as, response: plain });
    const body = JSON.stringify({ id_token: unsigned({ tid: fixtures.TENANT_A }) });
    const checked = await forTenantToken({ issuer: TEMPLATE }, new Response(body));
    expect(checked.as.issuer).toBe(entraIssuer(fixtures.TENANT_A));
    expect(await checked.response.text()).toBe(body);
  });
});
