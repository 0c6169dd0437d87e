/**
 * The provider imitation itself: it enforces what it says it enforces, so a provider test that
 * passes against it proves something.
 */
import { customFetch } from "@gatehousejs/core";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import { expectNoSessionCookie, signInError } from "./oauth-flow.js";
import { signIn } from "./provider-flow.js";
import { AuthorizeRefused, type Imitation, startImitation } from "./provider-imitation.js";
import { authorizeProblem, clientAuthProblem, parseBasic } from "./provider-imitation-rules.js";

const ISSUER = "https://id.example.com";
let op: Imitation;
let api: Imitation;

beforeAll(async () => {
  op = await startImitation({
    origins: [ISSUER, "https://api.id.example.com"],
    authorize: { url: `${ISSUER}/authorize`, pkce: "required", scope: { include: ["openid"] } },
    token: { url: "https://api.id.example.com/token", auth: "client_secret_post" },
    oidc: { issuer: ISSUER, alg: "ES256", userinfoUrl: "https://api.id.example.com/me" },
    user: { sub: "u-1", name: "Ida", email: "ida@example.com", email_verified: true },
  });
  api = await startImitation({
    origins: ["https://plain.example", "https://api.plain.example"],
    authorize: {
      url: "https://plain.example/oauth/authorize",
      state: true,
      scope: { required: false, separator: ",", known: ["read", "email"] },
      redirectUris: [`${ORIGIN}/auth/callback/plain`],
    },
    token: { url: "https://plain.example/oauth/token", auth: "client_secret_basic" },
    user: { id: 7, login: "pl", mail: "pl@example.com" },
  });
  api.route("GET", "https://api.plain.example/user", ({ grant }) => ({ body: grant!.user }));
});
afterEach(() => {
  op.reset();
  api.reset();
});
afterAll(async () => {
  await op.close();
  await api.close();
});

function config(provider: OAuthConfig): AuthConfig {
  return { secret: SECRET, trustHost: true, logger: recordingLogger(), providers: [provider] };
}

const oidc = (extra: Partial<OAuthConfig> = {}) =>
  OIDC({
    id: "idp",
    issuer: ISSUER,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["pkce", "state", "nonce"],
    [customFetch]: op.fetch,
    ...extra,
  });

const plain = (extra: Partial<OAuthConfig> = {}): OAuthConfig => ({
  id: "plain",
  name: "Plain",
  type: "oauth",
  authorization: { url: "https://plain.example/oauth/authorize", params: { scope: "read" } },
  token: "https://plain.example/oauth/token",
  userinfo: "https://api.plain.example/user",
  clientId: api.clientId,
  clientSecret: api.clientSecret,
  checks: ["state"],
  profile: (p) => ({ id: String(p.id), name: String(p.login), email: String(p.mail), image: null }),
  [customFetch]: api.fetch,
  ...extra,
});

describe("OIDC imitation", () => {
  test("discovery, PKCE, nonce, client_secret_post and an ES256 ID token: a session", async () => {
    const c = config(oidc());
    const result = await signIn(c, "idp", op);
    expect(result.authorization!.origin).toBe(ISSUER);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toMatchObject({ name: "Ida", email: "ida@example.com" });
    const [token] = op.requestsTo("POST", "https://api.id.example.com/token");
    expect(token!.host).toBe("api.id.example.com");
    expect(new URLSearchParams(token!.body).get("client_secret")).toBe(op.clientSecret);
    expect(op.requestsTo("GET", `${ISSUER}/.well-known/openid-configuration`)).toHaveLength(1);
  });

  test("the userinfo endpoint answers the user's claims for a Bearer token", async () => {
    const c = config(oidc({ idToken: false }));
    op.user = { sub: "u-1", name: "From Userinfo", email: "ida@example.com" };
    const { session } = await signIn(c, "idp", op);
    expect(session?.user?.name).toBe("From Userinfo");
    expect(op.requestsTo("GET", "https://api.id.example.com/me")[0]!.headers.authorization).toMatch(
      /^Bearer at-/,
    );
  });

  test("a missing PKCE challenge or nonce is refused at the authorize step", async () => {
    await expect(signIn(config(oidc({ checks: ["state", "nonce"] })), "idp", op)).rejects.toThrow(
      AuthorizeRefused,
    );
    await expect(signIn(config(oidc({ checks: ["pkce"] })), "idp", op)).rejects.toThrow(
      /nonce is required/,
    );
  });

  test("the wrong client authentication is refused with invalid_client", async () => {
    const c = config(oidc({ client: { token_endpoint_auth_method: "client_secret_basic" } }));
    const { response, session } = await signIn(c, "idp", op);
    expect(response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expectNoSessionCookie(response);
    expect(session).toBeNull();
  });

  test("a forced 503 from the token endpoint, and a refused consent, end on the sign-in page", async () => {
    op.force("POST", "https://api.id.example.com/token", { status: 503, body: "busy" });
    const failed = await signIn(config(oidc()), "idp", op);
    expect(failed.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    const denied = await signIn(config(oidc()), "idp", op, { decision: { deny: true } });
    expect(denied.answer!.url.searchParams.get("error")).toBe("access_denied");
    expect(denied.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expect(denied.session).toBeNull();
  });

  test("a code is good once", async () => {
    const c = config(oidc());
    const first = await signIn(c, "idp", op, { tamper: (a) => a });
    expect(first.session).not.toBeNull();
    const code = first.answer!.url.searchParams.get("code")!;
    const again = await op.fetch("https://api.id.example.com/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id: op.clientId,
        client_secret: op.clientSecret,
        redirect_uri: `${ORIGIN}/auth/callback/idp`,
      }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("plain OAuth imitation", () => {
  test("state required, comma scopes, client_secret_basic and a Bearer API route", async () => {
    const { response, session } = await signIn(config(plain()), "plain", api);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user).toMatchObject({ name: "pl", email: "pl@example.com" });
    const [token] = api.requestsTo("POST", "https://plain.example/oauth/token");
    expect(token!.headers.authorization).toMatch(/^Basic /);
  });

  test("an unknown scope and an unregistered redirect_uri are refused", async () => {
    const wide = plain({
      authorization: { url: "https://plain.example/oauth/authorize", params: { scope: "admin" } },
    });
    await expect(signIn(config(wide), "plain", api)).rejects.toThrow(/invalid_scope/);
    await expect(
      signIn(config(plain()), "plain", api, { origin: "http://127.0.0.1:3000" }),
    ).rejects.toThrow(/not registered/);
  });

  test("an API route refuses a missing token; other hosts are refused by fetch", async () => {
    const answer = await api.fetch("https://api.plain.example/user");
    expect(answer.status).toBe(401);
    await expect(api.fetch("https://example.org/")).rejects.toThrow(TypeError);
  });
});

describe("the rules, without sockets", () => {
  const base = {
    response_type: "code",
    scope: "openid email",
    state: "s",
    nonce: "n",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  };
  const problem = (params: Record<string, string>, rules = {}, oidc = true, mode = "query") =>
    authorizeProblem(new URLSearchParams(params), { url: "https://x", ...rules }, mode, oidc)
      ?.description;

  test("authorize parameters", () => {
    expect(problem(base)).toBeUndefined();
    expect(problem({ ...base, code_challenge_method: "plain" })).toMatch(/S256/);
    const { code_challenge: _c, code_challenge_method: _m, ...noPkce } = base;
    expect(problem(noPkce, { pkce: "required" })).toMatch(/code_challenge is required/);
    expect(problem(noPkce)).toBeUndefined();
    const { nonce: _n, ...noNonce } = base;
    expect(problem(noNonce)).toMatch(/nonce/);
    expect(problem(noNonce, {}, false)).toBeUndefined();
    expect(problem(base, { responseMode: "form_post" })).toMatch(/response_mode/);
    expect(problem(base, { scope: { include: ["profile"] } })).toMatch(/profile/);
    expect(problem(base, { scope: { known: ["openid"] } })).toMatch(/unknown scope email/);
    expect(
      problem({ ...base, scope: "a,b" }, { scope: { separator: ",", known: ["a", "b"] } }),
    ).toBeUndefined();
    expect(problem(base, { check: () => "no thanks" })).toBe("no thanks");
  });

  test("client authentication", () => {
    const client = { clientId: "c d", clientSecret: "s:e-cret" };
    const encoded = Buffer.from("c+d:s%3Ae%2Dcret").toString("base64");
    const basic = parseBasic(`Basic ${encoded}`);
    expect(basic).toEqual({ id: "c d", secret: "s:e-cret" });
    const form = new URLSearchParams();
    expect(
      clientAuthProblem("client_secret_basic", { form, headers: {}, basic }, client),
    ).toBeUndefined();
    expect(clientAuthProblem("client_secret_post", { form, headers: {}, basic }, client)).toMatch(
      /Authorization header/,
    );
    const post = new URLSearchParams({ client_id: "c d", client_secret: "s:e-cret" });
    expect(
      clientAuthProblem("client_secret_post", { form: post, headers: {} }, client),
    ).toBeUndefined();
    expect(clientAuthProblem("client_secret_basic", { form: post, headers: {} }, client)).toMatch(
      /not be in the body/,
    );
    expect(clientAuthProblem("none", { form: post, headers: {} }, client)).toMatch(/no secret/);
  });
});
