/**
 * `getAccessToken()` against a real OpenID provider (`oidc-provider` in-process) that issues
 * refresh tokens and rotates them on every use: single flight, compare-and-swap storage of the
 * rotated token, `invalid_grant`, and one retry after a 5xx.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Auth,
  getAccessToken,
  PROVIDER_TOKENS_BUDGET,
  PROVIDER_TOKENS_CLAIM,
  storeProviderTokens,
} from "@gatehousejs/core";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { type InMemoryAdapter, MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { decode, encode } from "@gatehousejs/core/jwt";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { recordingLogger, SECRET } from "./helpers.js";

const CLIENT = { id: "rp", secret: "rp-secret-0123456789abcdef0123456789" };
const ACCOUNT_ID = "user-1";

interface RefreshingProvider {
  issuer: string;
  provider: Provider;
  /** How many refresh_token grants reached the token endpoint (failed injections excluded). */
  refreshGrants: number;
  /** The next N token requests answer HTTP 500. */
  fail500: number;
  close(): Promise<void>;
}

async function startRefreshingProvider(): Promise<RefreshingProvider> {
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "k1", alg: "RS256", use: "sig" };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: ["http://localhost:3000/auth/callback/oidc"],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["access-token-test-cookie-key-0123456789"] },
    scopes: ["openid", "offline_access"],
    rotateRefreshToken: true,
    features: { devInteractions: { enabled: false } },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: { AccessToken: 300, IdToken: 300, RefreshToken: 3600, Grant: 3600 },
  });
  const state: RefreshingProvider = {
    issuer,
    provider,
    refreshGrants: 0,
    fail500: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  const callback = provider.callback();
  function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.url?.startsWith("/token") && req.method === "POST") {
      if (state.fail500 > 0) {
        state.fail500--;
        req.resume();
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "server_error" }));
        return;
      }
      state.refreshGrants++;
    }
    callback(req, res);
  }
  return state;
}

/** Mints a refresh token for `ACCOUNT_ID` directly in the provider's store. */
async function mintRefreshToken(op: RefreshingProvider): Promise<string> {
  const { provider } = op;
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId: CLIENT.id });
  grant.addOIDCScope("openid offline_access");
  const grantId = await grant.save();
  const client = await provider.Client.find(CLIENT.id);
  const token = new provider.RefreshToken({
    accountId: ACCOUNT_ID,
    client: client!,
    grantId,
    scope: "openid offline_access",
    gty: "authorization_code",
  });
  return token.save();
}

let op: RefreshingProvider;
beforeAll(async () => {
  op = await startRefreshingProvider();
});
afterAll(() => op.close());

const key = { provider: "oidc", providerAccountId: ACCOUNT_ID };
let adapter: InMemoryAdapter;
let config: AuthConfig;
let userId: string;

beforeEach(async () => {
  adapter = MemoryAdapter();
  config = {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter,
    providers: [OIDC({ issuer: op.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret })],
  };
  userId = crypto.randomUUID();
  await adapter.createUser({ id: userId, email: "user-1@example.com", emailVerified: null });
  op.refreshGrants = 0;
  op.fail500 = 0;
});

async function linkExpired(refreshToken: string | undefined, extra: Partial<AdapterAccount> = {}) {
  await adapter.linkAccount({
    ...key,
    userId,
    type: "oidc",
    access_token: "old-access-token",
    token_type: "bearer",
    expires_at: Math.floor(Date.now() / 1000) - 10,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    ...extra,
  });
}

describe("getAccessToken", () => {
  test("a token that is still fresh is returned without a grant", async () => {
    await linkExpired("unused", { expires_at: Math.floor(Date.now() / 1000) + 3600 });
    const token = await getAccessToken({ userId }, config, "oidc");
    expect(token).toEqual({
      accessToken: "old-access-token",
      expiresAt: expect.any(Number),
      tokenType: "bearer",
    });
    expect(op.refreshGrants).toBe(0);
  });

  test("a token within the skew is refreshed", async () => {
    await linkExpired(await mintRefreshToken(op), {
      expires_at: Math.floor(Date.now() / 1000) + 30,
    });
    const token = await getAccessToken({ userId }, config, "oidc", { skew: 60 });
    expect(token?.accessToken).not.toBe("old-access-token");
    expect(op.refreshGrants).toBe(1);
  });

  test("100 concurrent calls make exactly one refresh grant and share its token", async () => {
    const first = await mintRefreshToken(op);
    await linkExpired(first);
    const results = await Promise.all(
      Array.from({ length: 100 }, () => getAccessToken({ userId }, config, "oidc")),
    );
    expect(op.refreshGrants).toBe(1);
    const tokens = new Set(results.map((r) => r?.accessToken));
    expect(tokens.size).toBe(1);
    const stored = adapter.rows.account(key)!;
    expect(results[0]?.accessToken).toBe(stored.access_token);
    expect(stored.access_token).not.toBe("old-access-token");
    // Rotated: a new refresh token is stored, once.
    expect(stored.refresh_token).toEqual(expect.any(String));
    expect(stored.refresh_token).not.toBe(first);
    expect(stored.expires_at).toBeGreaterThan(Date.now() / 1000 + 200);
    // The stored rotated token works for the next refresh.
    await adapter.updateAccount({ ...key, expires_at: 1 });
    const next = await getAccessToken({ userId }, config, "oidc");
    expect(next?.accessToken).not.toBe(stored.access_token);
    expect(op.refreshGrants).toBe(2);
  });

  test("processes sharing an adapter lock: one refreshes, the other reads the stored result", async () => {
    await linkExpired(await mintRefreshToken(op));
    // A second "process": the same store, but its own config (so its own provider instance).
    const other: AuthConfig = {
      ...config,
      providers: [OIDC({ issuer: op.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret })],
    };
    const release = await adapter.lockAccount(key, 5_000);
    expect(release).not.toBeNull();
    // While the lock is held elsewhere, the call waits; the "holder" then stores a token.
    const waiting = getAccessToken({ userId }, other, "oidc");
    await new Promise((resolve) => setTimeout(resolve, 120));
    const refreshToken = adapter.rows.account(key)!.refresh_token!;
    await adapter.updateAccount(
      {
        ...key,
        access_token: "stored-by-another-process",
        expires_at: Math.floor(Date.now() / 1000) + 600,
      },
      { ifRefreshToken: refreshToken },
    );
    await release!();
    expect(await waiting).toMatchObject({ accessToken: "stored-by-another-process" });
    expect(op.refreshGrants).toBe(0);
  });

  test("a revoked refresh token throws RefreshTokenError, marks the account, keeps the tokens", async () => {
    await linkExpired("not-a-token-the-provider-knows");
    const error = await getAccessToken({ userId }, config, "oidc").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "RefreshTokenError", type: "RefreshTokenError" });
    expect(op.refreshGrants).toBe(1);
    const stored = adapter.rows.account(key)!;
    expect(stored).toMatchObject({
      access_token: "old-access-token",
      refresh_token: "not-a-token-the-provider-knows",
      error: "RefreshTokenError",
    });
    // A marked account fails fast: no second grant.
    await expect(getAccessToken({ userId }, config, "oidc")).rejects.toMatchObject({
      type: "RefreshTokenError",
    });
    expect(op.refreshGrants).toBe(1);
  });

  test("an expired token without a refresh token throws RefreshTokenError", async () => {
    await linkExpired(undefined);
    await expect(getAccessToken({ userId }, config, "oidc")).rejects.toMatchObject({
      type: "RefreshTokenError",
    });
    expect(op.refreshGrants).toBe(0);
  });

  test("a 5xx once is retried once and succeeds", async () => {
    await linkExpired(await mintRefreshToken(op));
    op.fail500 = 1;
    const token = await getAccessToken({ userId }, config, "oidc");
    expect(token?.accessToken).not.toBe("old-access-token");
    expect(op.fail500).toBe(0);
    expect(op.refreshGrants).toBe(1);
  });

  test("a 5xx twice fails without deleting or marking anything", async () => {
    const refreshToken = await mintRefreshToken(op);
    await linkExpired(refreshToken);
    op.fail500 = 2;
    const error = await getAccessToken({ userId }, config, "oidc").catch((e: unknown) => e);
    expect(error).toMatchObject({ type: "AuthError" });
    expect(op.refreshGrants).toBe(0);
    const stored = adapter.rows.account(key)!;
    expect(stored).toMatchObject({ access_token: "old-access-token", refresh_token: refreshToken });
    expect(stored.error).toBeUndefined();
    // The next call, with the provider back, refreshes.
    expect((await getAccessToken({ userId }, config, "oidc"))?.accessToken).not.toBe(
      "old-access-token",
    );
  });

  test("no account with the provider, or a signed-out request: null", async () => {
    expect(await getAccessToken({ userId }, config, "oidc")).toBeNull();
    const request = new Request("http://localhost:3000/");
    expect(await getAccessToken(request, config, "oidc")).toBeNull();
  });

  test("a request with a database session names the user", async () => {
    await linkExpired("unused", { expires_at: Math.floor(Date.now() / 1000) + 3600 });
    await adapter.createSession({
      sessionToken: "session-token-1",
      userId,
      expires: new Date(Date.now() + 60_000),
    });
    const request = new Request("http://localhost:3000/", {
      headers: { cookie: "authjs.session-token=session-token-1" },
    });
    const database: AuthConfig = { ...config, session: { strategy: "database" } };
    expect(await getAccessToken(request, database, "oidc")).toMatchObject({
      accessToken: "old-access-token",
    });
    // A request for another host than the pinned origin has no session here.
    const pinned: AuthConfig = { ...database, url: "http://localhost:3000", trustHost: false };
    const elsewhere = new Request("http://evil.example/", {
      headers: { cookie: "authjs.session-token=session-token-1" },
    });
    expect(await getAccessToken(elsewhere, pinned, "oidc")).toBeNull();
  });

  test("an unknown provider id throws InvalidProvider", async () => {
    await expect(getAccessToken({ userId }, config, "nope")).rejects.toMatchObject({
      type: "InvalidProvider",
    });
  });
});

describe("getAccessToken under the JWT strategy without an adapter", () => {
  const COOKIE = "authjs.session-token";
  const jwtConfig = (): AuthConfig => ({
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    providers: [OIDC({ issuer: op.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret })],
  });

  async function requestWith(refreshToken: string, expiresAt: number) {
    const token = storeProviderTokens(
      { sub: "user-1", name: "User" },
      {
        provider: "oidc",
        providerAccountId: ACCOUNT_ID,
        type: "oidc",
        access_token: "old-access-token",
        refresh_token: refreshToken,
        expires_at: expiresAt,
        token_type: "bearer",
      },
    );
    const value = await encode({ token, secret: SECRET, salt: COOKIE });
    return new Request("http://localhost:3000/", { headers: { cookie: `${COOKIE}=${value}` } });
  }

  async function sessionWith(config: AuthConfig, setCookies: string[]) {
    const cookie = setCookies
      .map((c) => c.split(";")[0]!)
      .filter((c) => c.startsWith(COOKIE))
      .join("; ");
    const response = await Auth(
      new Request("http://localhost:3000/auth/session", { headers: { cookie } }),
      config,
    );
    expect(response.status).toBe(200);
    return response.json();
  }

  async function claimOf(setCookies: string[]) {
    const cookie = setCookies.find((c) => c.startsWith(`${COOKIE}=`));
    expect(cookie).toBeDefined();
    const value = decodeURIComponent(cookie!.slice(COOKIE.length + 1).split(";")[0]!);
    const token = await decode({ token: value, secret: SECRET, salt: COOKIE });
    return token?.[PROVIDER_TOKENS_CLAIM] as Record<string, unknown>;
  }

  test("storeProviderTokens keeps the token alone without an account", () => {
    expect(storeProviderTokens({ sub: "a" }, null)).toEqual({ sub: "a" });
  });

  test("a fresh token is returned from the cookie, nothing re-issued", async () => {
    const cookies: string[] = [];
    const request = await requestWith("unused", Math.floor(Date.now() / 1000) + 3600);
    const token = await getAccessToken(request, jwtConfig(), "oidc", {
      onCookies: (c) => cookies.push(...c),
    });
    expect(token?.accessToken).toBe("old-access-token");
    expect(cookies).toEqual([]);
    expect(op.refreshGrants).toBe(0);
  });

  test("an expired token is refreshed and the session cookie re-issued with the new set", async () => {
    const first = await mintRefreshToken(op);
    const request = await requestWith(first, Math.floor(Date.now() / 1000) - 5);
    const config = jwtConfig();
    const cookies: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        getAccessToken(request, config, "oidc", { onCookies: (c) => cookies.push(...c) }),
      ),
    );
    expect(op.refreshGrants).toBe(1);
    expect(new Set(results.map((r) => r?.accessToken)).size).toBe(1);
    const claim = await claimOf(cookies);
    expect(claim).toMatchObject({ provider: "oidc", access_token: results[0]?.accessToken });
    expect(claim["refresh_token"]).toEqual(expect.any(String));
    expect(claim["refresh_token"]).not.toBe(first);
    expect(claim["expires_at"]).toBeGreaterThan(Date.now() / 1000 + 200);
  });

  test("a refused refresh token marks the cookie and throws RefreshTokenError", async () => {
    const request = await requestWith("unknown-refresh-token", Math.floor(Date.now() / 1000) - 5);
    const cookies: string[] = [];
    await expect(
      getAccessToken(request, jwtConfig(), "oidc", { onCookies: (c) => cookies.push(...c) }),
    ).rejects.toMatchObject({ type: "RefreshTokenError" });
    expect(await claimOf(cookies)).toMatchObject({
      access_token: "old-access-token",
      refresh_token: "unknown-refresh-token",
      error: "RefreshTokenError",
    });
    // The re-issued cookie tells the jwt and session callbacks, and the client's session.
    const seen: unknown[] = [];
    const config: AuthConfig = {
      ...jwtConfig(),
      callbacks: {
        jwt: ({ token }) => {
          seen.push(token.error);
          return token;
        },
      },
    };
    const session = await sessionWith(config, cookies);
    expect(seen).toEqual(["RefreshTokenError"]);
    expect(session).toMatchObject({ error: "RefreshTokenError", user: { name: "User" } });
  });

  test("the refreshed set keeps the ID token within the cookie budget", async () => {
    const first = await mintRefreshToken(op);
    const request = await requestWith(first, Math.floor(Date.now() / 1000) - 5);
    const cookies: string[] = [];
    await getAccessToken(request, jwtConfig(), "oidc", { onCookies: (c) => cookies.push(...c) });
    const claim = await claimOf(cookies);
    // oidc-provider issues a new ID token with a refresh for an `openid` grant.
    expect(claim["id_token"]).toEqual(expect.any(String));
    expect(JSON.stringify(claim).length).toBeLessThanOrEqual(PROVIDER_TOKENS_BUDGET);
  });

  test("a request without a session: null; { userId } without an adapter: MissingAdapter", async () => {
    expect(await getAccessToken(new Request("http://localhost:3000/"), jwtConfig(), "oidc")).toBe(
      null,
    );
    await expect(getAccessToken({ userId: "u" }, jwtConfig(), "oidc")).rejects.toMatchObject({
      type: "MissingAdapter",
    });
  });
});

describe("a refused refresh token reaches the session callbacks", () => {
  test("database strategy: every session of the user says so, through the session callback", async () => {
    await linkExpired("refused-refresh-token");
    const tokens = ["session-a", "session-b"];
    for (const sessionToken of tokens) {
      await adapter.createSession({
        sessionToken,
        userId,
        expires: new Date(Date.now() + 3_600_000),
      });
    }
    const params: unknown[] = [];
    const database: AuthConfig = {
      ...config,
      session: { strategy: "database" },
      callbacks: {
        session: (p) => {
          params.push(p.session.error);
          return { expires: p.session.expires, error: p.session.error };
        },
      },
    };
    await expect(getAccessToken({ userId }, database, "oidc")).rejects.toMatchObject({
      type: "RefreshTokenError",
    });
    for (const sessionToken of tokens) {
      const response = await Auth(
        new Request("http://localhost:3000/auth/session", {
          headers: { cookie: `authjs.session-token=${sessionToken}` },
        }),
        database,
      );
      expect(await response.json()).toMatchObject({ error: "RefreshTokenError" });
    }
    expect(params).toEqual(["RefreshTokenError", "RefreshTokenError"]);
    // The default session callback passes it on too.
    const plain: AuthConfig = { ...config, session: { strategy: "database" } };
    const response = await Auth(
      new Request("http://localhost:3000/auth/session", {
        headers: { cookie: "authjs.session-token=session-a" },
      }),
      plain,
    );
    expect(await response.json()).toMatchObject({ error: "RefreshTokenError" });
  });

  test("database strategy: a session created after the mark learns it on the next call", async () => {
    await linkExpired("refused-refresh-token");
    const database: AuthConfig = { ...config, session: { strategy: "database" } };
    await expect(getAccessToken({ userId }, database, "oidc")).rejects.toThrow();
    await adapter.createSession({
      sessionToken: "later",
      userId,
      expires: new Date(Date.now() + 3_600_000),
    });
    await expect(getAccessToken({ userId }, database, "oidc")).rejects.toMatchObject({
      type: "RefreshTokenError",
    });
    expect(op.refreshGrants).toBe(1);
    const found = await adapter.getSessionAndUser("later");
    expect(found?.session.error).toBe("RefreshTokenError");
  });

  test("JWT strategy with an adapter: the re-issued cookie carries error for jwt and session", async () => {
    await linkExpired("refused-refresh-token");
    const COOKIE = "authjs.session-token";
    const jwtWithAdapter: AuthConfig = { ...config, session: { strategy: "jwt" } };
    const value = await encode({
      token: { sub: userId, name: "User", sid: "s1" },
      secret: SECRET,
      salt: COOKIE,
    });
    const request = new Request("http://localhost:3000/", {
      headers: { cookie: `${COOKIE}=${value}` },
    });
    const cookies: string[] = [];
    await expect(
      getAccessToken(request, jwtWithAdapter, "oidc", { onCookies: (c) => cookies.push(...c) }),
    ).rejects.toMatchObject({ type: "RefreshTokenError" });
    const cookie = cookies.find((c) => c.startsWith(`${COOKIE}=`))!;
    const reissued = decodeURIComponent(cookie.slice(COOKIE.length + 1).split(";")[0]!);
    const token = await decode({ token: reissued, secret: SECRET, salt: COOKIE });
    expect(token).toMatchObject({ sub: userId, sid: "s1", error: "RefreshTokenError" });
    const response = await Auth(
      new Request("http://localhost:3000/auth/session", {
        headers: { cookie: `${COOKIE}=${reissued}` },
      }),
      jwtWithAdapter,
    );
    expect(await response.json()).toMatchObject({ error: "RefreshTokenError" });
  });
});
