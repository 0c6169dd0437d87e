import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthorizeResult,
  authorize,
  type OidcServer,
  startOidcProvider,
} from "./oidc-server.js";
import { startTikTok, type TikTokServer } from "./tiktok-server.js";

const CALLBACK = "http://localhost:3000/auth/callback/oidc";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function redirectOf(result: AuthorizeResult): URL {
  if (!("redirect" in result)) throw new Error("expected a redirect, got a form_post page");
  return result.redirect;
}

describe("oidc-provider test server", () => {
  let op: OidcServer;
  beforeAll(async () => {
    op = await startOidcProvider();
  });
  afterAll(() => op.close());

  function authorizationUrl(params: Record<string, string>): string {
    const url = new URL(op.authorizationEndpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      scope: "openid profile email",
      redirect_uri: CALLBACK,
      ...params,
    }).toString();
    return url.href;
  }

  function tokenRequest(form: Record<string, string>, basic?: { id: string; secret: string }) {
    return fetch(op.tokenEndpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(basic ? { authorization: `Basic ${btoa(`${basic.id}:${basic.secret}`)}` } : {}),
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        redirect_uri: CALLBACK,
        ...form,
      }),
    });
  }

  it("serves a discovery document for its issuer", async () => {
    const response = await fetch(`${op.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: op.authorizationEndpoint,
      token_endpoint: op.tokenEndpoint,
      userinfo_endpoint: op.userinfoEndpoint,
      jwks_uri: op.jwksUri,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      response_modes_supported: expect.arrayContaining(["query", "form_post"]),
    });
  });

  it("runs a code flow with PKCE and client_secret_basic, then answers userinfo", async () => {
    const { verifier, challenge } = pkce();
    const redirect = redirectOf(
      await authorize(
        authorizationUrl({
          client_id: "basic",
          state: "st-1",
          nonce: "n-1",
          code_challenge: challenge,
          code_challenge_method: "S256",
        }),
      ),
    );
    expect(redirect.origin + redirect.pathname).toBe(CALLBACK);
    expect(redirect.searchParams.get("state")).toBe("st-1");
    expect(redirect.searchParams.get("iss")).toBe(op.issuer);

    const { basic } = op.clients;
    const tokenResponse = await tokenRequest(
      { code: redirect.searchParams.get("code")!, code_verifier: verifier },
      { id: basic.clientId, secret: basic.clientSecret! },
    );
    expect(tokenResponse.status).toBe(200);
    const tokens = (await tokenResponse.json()) as Record<string, string>;
    expect(tokens["token_type"]).toBe("Bearer");
    const { payload } = await jwtVerify(
      tokens["id_token"]!,
      createRemoteJWKSet(new URL(op.jwksUri)),
      {
        issuer: op.issuer,
        audience: "basic",
      },
    );
    const claims = {
      sub: "user-1",
      email: "user-1@example.com",
      email_verified: true,
      name: "User user-1",
      picture: "https://img.example/user-1.png",
    };
    expect(payload).toMatchObject({ ...claims, nonce: "n-1" });

    const userinfo = await fetch(op.userinfoEndpoint, {
      headers: { authorization: `Bearer ${tokens["access_token"]}` },
    });
    expect(await userinfo.json()).toEqual(claims);
  });

  it("signs in the login_hint account and accepts client_secret_post", async () => {
    const redirect = redirectOf(
      await authorize(authorizationUrl({ client_id: "post", login_hint: "bob", state: "s" })),
    );
    const { post } = op.clients;
    const response = await tokenRequest({
      code: redirect.searchParams.get("code")!,
      client_id: post.clientId,
      client_secret: post.clientSecret!,
    });
    const tokens = (await response.json()) as { id_token: string };
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(op.jwksUri)));
    expect(payload).toMatchObject({ sub: "bob", email: "bob@example.com" });
  });

  it("requires PKCE of the public client only", async () => {
    const refused = redirectOf(await authorize(authorizationUrl({ client_id: "public" })));
    expect(refused.searchParams.get("error")).toBe("invalid_request");

    const { verifier, challenge } = pkce();
    const redirect = redirectOf(
      await authorize(
        authorizationUrl({
          client_id: "public",
          code_challenge: challenge,
          code_challenge_method: "S256",
        }),
      ),
    );
    const response = await tokenRequest({
      code: redirect.searchParams.get("code")!,
      client_id: "public",
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
  });

  it("answers response_mode=form_post with an auto-post form carrying code, state and iss", async () => {
    const result = await authorize(
      authorizationUrl({
        client_id: "formpost",
        response_mode: "form_post",
        state: "fp",
        redirect_uri: "http://localhost:3000/auth/callback/formpost",
      }),
    );
    if (!("formPost" in result)) throw new Error("expected a form_post page");
    expect(result.formPost.action).toBe("http://localhost:3000/auth/callback/formpost");
    expect(result.formPost.fields).toMatchObject({ state: "fp", iss: op.issuer });
    expect(result.formPost.fields["code"]).toBeTruthy();
  });

  it("refuses a replayed authorization code", async () => {
    const redirect = redirectOf(await authorize(authorizationUrl({ client_id: "post" })));
    const form = {
      code: redirect.searchParams.get("code")!,
      client_id: "post",
      client_secret: op.clients.post.clientSecret!,
    };
    expect((await tokenRequest(form)).status).toBe(200);
    const replay = await tokenRequest(form);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("fails the next token or userinfo request on demand, once per call", async () => {
    op.failNext("token500");
    expect((await tokenRequest({ code: "x" })).status).toBe(500);
    expect((await tokenRequest({ code: "x" })).status).not.toBe(500);
    op.failNext("userinfo500");
    expect((await fetch(op.userinfoEndpoint)).status).toBe(500);
    expect((await fetch(op.userinfoEndpoint)).status).toBe(400);
  });

  it("signs arbitrary JWTs with its published key", async () => {
    const token = await op.signJwt({ iss: "https://elsewhere.example", sub: "x" });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(op.jwksUri)));
    expect(payload.iss).toBe("https://elsewhere.example");
  });

  it("refuses connections once closed", async () => {
    const down = await startOidcProvider();
    await down.close();
    await expect(fetch(`${down.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  });
});

describe("TikTok-shaped server", () => {
  let tiktok: TikTokServer;
  beforeAll(async () => {
    tiktok = await startTikTok();
  });
  afterAll(() => tiktok.close());

  const REDIRECT = "http://localhost:3000/api/auth/callback/tiktok";

  function token(form: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
    return fetch(tiktok.tokenUrl, {
      method: "POST",
      headers: { "content-type": contentType },
      body:
        contentType === "application/json"
          ? JSON.stringify(form)
          : new URLSearchParams(form).toString(),
    });
  }

  function codeForm(code: string, extra: Record<string, string> = {}) {
    return {
      client_key: tiktok.clientKey,
      client_secret: tiktok.clientSecret,
      code,
      grant_type: "authorization_code",
      redirect_uri: REDIRECT,
      ...extra,
    };
  }

  it("runs authorize → token (form with client_key) → user info with fields", async () => {
    const { verifier, challenge } = pkce();
    const authorizeUrl = new URL(tiktok.authorizeUrl);
    authorizeUrl.search = new URLSearchParams({
      client_key: tiktok.clientKey,
      scope: "user.info.profile",
      response_type: "code",
      redirect_uri: REDIRECT,
      state: "xyz",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    const redirect = await fetch(authorizeUrl, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    const callback = new URL(redirect.headers.get("location")!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get("state")).toBe("xyz");

    const response = await token(
      codeForm(callback.searchParams.get("code")!, { code_verifier: verifier }),
    );
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({
      expires_in: 86400,
      open_id: "tt-open-1",
      refresh_expires_in: 31536000,
      scope: "user.info.basic,user.info.profile",
      token_type: "Bearer",
    });

    const info = await fetch(
      `${tiktok.userinfoUrl}?fields=open_id,avatar_url,display_name,username`,
      {
        headers: { authorization: `Bearer ${tokens["access_token"]}` },
      },
    );
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({
      data: {
        user: {
          open_id: "tt-open-1",
          avatar_url: "https://p16.example/a.jpg",
          display_name: "TT User",
          username: "ttuser",
        },
      },
      error: { code: "ok", message: "" },
    });
    expect(tiktok.requests.at(-1)).toMatchObject({ method: "GET", path: "/v2/user/info/" });
  });

  it("rejects a JSON token request", async () => {
    const code = tiktok.issueCode({ redirectUri: REDIRECT });
    const response = await token(codeForm(code), "application/json");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "invalid_request",
      log_id: expect.any(String),
    });
  });

  it("rejects requests without client_key", async () => {
    const authorizeUrl = `${tiktok.authorizeUrl}?scope=user.info.profile&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`;
    expect((await fetch(authorizeUrl, { redirect: "manual" })).status).toBe(400);

    const { client_key: _, ...withoutKey } = codeForm(tiktok.issueCode({ redirectUri: REDIRECT }));
    const response = await token(withoutKey);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
  });

  it("refuses a reused code and a wrong code_verifier", async () => {
    const code = tiktok.issueCode({ redirectUri: REDIRECT });
    expect((await token(codeForm(code))).status).toBe(200);
    const reuse = await token(codeForm(code));
    expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });

    const { challenge } = pkce();
    const pkceCode = tiktok.issueCode({ redirectUri: REDIRECT, codeChallenge: challenge });
    const wrong = await token(codeForm(pkceCode, { code_verifier: pkce().verifier }));
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("enforces the Bearer token, fields, field scopes and the configured profile error", async () => {
    const issue = await token(codeForm(tiktok.issueCode({ redirectUri: REDIRECT })));
    const { access_token } = (await issue.json()) as { access_token: string };
    const info = (query: string, bearer = access_token) =>
      fetch(`${tiktok.userinfoUrl}${query}`, { headers: { authorization: `Bearer ${bearer}` } });

    const noToken = await info("?fields=open_id", "nope");
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({
      data: {},
      error: { code: "access_token_invalid" },
    });
    expect((await info("")).status).toBe(400);
    expect(await (await info("?fields=follower_count")).json()).toMatchObject({
      error: { code: "scope_permission_missed" },
    });

    tiktok.setProfileError({ code: "scope_not_authorized", message: "no" });
    try {
      const failed = await info("?fields=open_id");
      expect(failed.status).toBe(200);
      expect(await failed.json()).toMatchObject({
        data: {},
        error: { code: "scope_not_authorized", message: "no", log_id: expect.any(String) },
      });
    } finally {
      tiktok.setProfileError(null);
    }
  });
});
