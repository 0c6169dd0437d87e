/**
 * The back-channel logout receiver's rules, one at a time: which logout tokens it refuses (and the
 * one log line that says why, without the token), how long a `jti` stays spent, and which
 * sessions a token ends under each storage shape (an adapter with or without the bulk session
 * methods, JWT sessions with or without a revocation store). Sessions are seeded straight into the
 * stores, so each rule is checked without a full sign-in.
 */
import { randomUUID } from "node:crypto";
import { Auth, customFetch } from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import { type InMemoryAdapter, MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import OIDC from "@gatehousejs/core/providers/oidc";
import {
  type InMemoryRevocationStore,
  MemoryRevocationStore,
} from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import type { JWTPayload } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

const EVENT = "http://schemas.openid.net/event/backchannel-logout";
const PATH = "/auth/backchannel-logout/oidc";
/** Without an adapter, a user's id is the provider-scoped account id. */
const JWT_USER = "oidc:user-1";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());
afterEach(() => {
  vi.useRealTimers();
});

type Logger = ReturnType<typeof recordingLogger>;

function oidc(extra: Record<string, unknown> = {}) {
  return OIDC({
    id: "oidc",
    issuer: op.issuer,
    clientId: op.clients.basic.clientId,
    clientSecret: op.clients.basic.clientSecret,
    ...extra,
  });
}

function jwtConfig(
  store: InMemoryRevocationStore | undefined,
  extra: Partial<AuthConfig> = {},
): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    session: { strategy: "jwt", ...(store ? { revocation: { store } } : {}) },
    providers: [oidc()],
    ...extra,
  };
}

function databaseConfig(adapter: Adapter): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter,
    session: { strategy: "database" },
    providers: [oidc()],
  };
}

const now = () => Math.floor(Date.now() / 1000);

/** A valid logout token's claims for `user-1`; `over` replaces, or with undefined drops, a claim. */
function claims(over: Record<string, unknown> = {}): JWTPayload {
  const base: Record<string, unknown> = {
    iss: op.issuer,
    aud: op.clients.basic.clientId,
    iat: now(),
    jti: randomUUID(),
    sub: "user-1",
    sid: "provider-session",
    events: { [EVENT]: {} },
  };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base as JWTPayload;
}

async function deliver(cfg: AuthConfig, over: Record<string, unknown> = {}) {
  return deliverToken(cfg, await op.signJwt(claims(over)));
}

function deliverToken(cfg: AuthConfig, token: string) {
  return send(cfg, new Jar(), PATH, { form: { logout_token: token } });
}

/** The messages of the warnings logged, each with its kind. */
function warnings(cfg: AuthConfig): string[] {
  return (cfg.logger as Logger).warn.mock.calls.map(
    ([kind, error]) => `${kind}: ${(error as Error).message}`,
  );
}

/** Pins the clock (Date only: the servers' sockets and timers stay real). */
function freezeClock(at = Date.now()): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
}

function advanceClock(seconds: number): void {
  vi.setSystemTime(Date.now() + seconds * 1000);
}

/** A revocation check for a session of `user` that began ten seconds ago. */
function revoked(store: InMemoryRevocationStore, sessionId: string, user = JWT_USER) {
  return store.check({ userId: user, sessionId, issuedAt: now() - 10 });
}

async function recordJwtSession(
  store: InMemoryRevocationStore,
  sessionId: string,
  providerSid?: string,
): Promise<void> {
  await store.recordSession({
    userId: JWT_USER,
    sessionId,
    expires: new Date(Date.now() + 3_600_000),
    createdAt: new Date(Date.now() - 10_000),
    ...(providerSid ? { providerSid } : {}),
  });
}

describe("refused logout tokens", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["an iat beyond the clock skew", { iat: now() + 3600 }, /iat is out of range/],
    ["no iat", { iat: undefined }, /iat/],
    ["an empty jti", { jti: "" }, /has no jti/],
    ["a jti that is not a string", { jti: 7 }, /has no jti/],
    ["an empty sub and no sid", { sub: "", sid: undefined }, /neither sub nor sid/],
    ["an empty sid and no sub", { sub: undefined, sid: "" }, /neither sub nor sid/],
    ["a sub that is not a string, and no sid", { sub: 5, sid: undefined }, /neither sub nor sid/],
    // Answering 200 to a token whose sessions cannot be found would claim a logout that did not happen.
    ["a sid and no sub", { sub: undefined, sid: "op-session-1" }, /sid but no sub/],
    ["a nonce", { nonce: "n" }, /must not carry a nonce/],
    ["events without the logout event", { events: { other: {} } }, /no back-channel logout/],
    ["null events", { events: null }, /no back-channel logout/],
  ];
  for (const [name, over, reason] of cases) {
    test(`a token with ${name} answers 400, ends nothing, and the log names the reason without the token`, async () => {
      const store = MemoryRevocationStore();
      const cfg = jwtConfig(store);
      const token = await op.signJwt(claims(over));
      const response = await deliverToken(cfg, token);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_request" });
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await revoked(store, "s1")).toBe(false);
      const logged = warnings(cfg);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/^client-error: Back-channel logout refused: /);
      expect(logged[0]).toMatch(reason);
      expect(logged[0]).not.toContain(token);
    });
  }

  test("a provider whose discovery document has no jwks_uri cannot verify a token: 400, and the log says so", async () => {
    const issuer = `https://idp.example/no-jwks-${randomUUID()}`;
    const document = {
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
    };
    const fakeFetch = (async () =>
      new Response(JSON.stringify(document), {
        headers: { "content-type": "application/json" },
      })) as typeof fetch;
    const cfg = jwtConfig(MemoryRevocationStore(), {
      providers: [oidc({ issuer, [customFetch]: fakeFetch })],
    });
    const response = await deliver(cfg, { iss: issuer });
    expect(response.status).toBe(400);
    expect(warnings(cfg)).toEqual([
      "client-error: Back-channel logout refused: The provider publishes no jwks_uri",
    ]);
  });

  test("no logout_token, an empty one, or a non-OIDC provider: 400, and the log says what is missing; an unknown provider is 400 too", async () => {
    const plainOAuth = {
      id: "plain",
      name: "Plain",
      type: "oauth",
      issuer: op.issuer,
      clientId: op.clients.basic.clientId,
      clientSecret: op.clients.basic.clientSecret,
    } as unknown as AuthConfig["providers"][number];
    const cfg = jwtConfig(MemoryRevocationStore(), { providers: [oidc(), plainOAuth] });
    const token = await op.signJwt(claims());
    const attempts = [
      send(cfg, new Jar(), PATH, { form: {} }),
      send(cfg, new Jar(), PATH, { form: { logout_token: "" } }),
      send(cfg, new Jar(), "/auth/backchannel-logout/plain", { form: { logout_token: token } }),
    ];
    attempts.push(
      send(jwtConfig(MemoryRevocationStore()), new Jar(), "/auth/backchannel-logout/nope", {
        form: { logout_token: token },
      }),
    );
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(400);
    }
    expect(warnings(cfg)).toEqual(
      Array(3).fill("client-error: Back-channel logout: no logout_token for an OIDC provider"),
    );
  });

  test("a POST without a body answers 400, not a server error", async () => {
    const cfg = jwtConfig(MemoryRevocationStore());
    const response = await Auth(new Request(`${ORIGIN}${PATH}`, { method: "POST" }), cfg);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_request" });
  });
});

describe("the iat window", () => {
  test("an iat up to 60 seconds ahead or 300 seconds behind is accepted; one second more is refused", async () => {
    freezeClock();
    const cfg = jwtConfig(MemoryRevocationStore());
    const at = now();
    expect((await deliver(cfg, { iat: at + 60 })).status).toBe(200);
    expect((await deliver(cfg, { iat: at - 300 })).status).toBe(200);
    expect((await deliver(cfg, { iat: at + 61 })).status).toBe(400);
    expect((await deliver(cfg, { iat: at - 301 })).status).toBe(400);
  });
});

describe("replays", () => {
  test("two tokens that differ only in jti are both accepted", async () => {
    const store = MemoryRevocationStore();
    const cfg = jwtConfig(store);
    expect((await deliver(cfg)).status).toBe(200);
    expect((await deliver(cfg)).status).toBe(200);
  });

  test("a jti stays spent for as long as its token's iat is accepted", async () => {
    freezeClock();
    const cfg = jwtConfig(MemoryRevocationStore());
    // The latest a token is accepted: iat at the skew's edge, delivered 300 seconds after it.
    const token = await op.signJwt(claims({ iat: now() + 60 }));
    expect((await deliverToken(cfg, token)).status).toBe(200);
    advanceClock(359);
    const replay = await deliverToken(cfg, token);
    expect(replay.status).toBe(400);
    expect(warnings(cfg)).toEqual([
      "client-error: Back-channel logout refused: the jti was replayed",
    ]);
  });
});

describe("JWT sessions", () => {
  test("without a revocation store a valid token ends nothing, answers 200, and the log says what is missing", async () => {
    const cfg = jwtConfig(undefined);
    const response = await deliver(cfg);
    expect(response.status).toBe(200);
    expect(warnings(cfg)).toEqual([
      "client-error: Back-channel logout: JWT sessions need session.revocation to be ended",
    ]);
  });

  test("a token with sub and no sid ends every session of the user, those signed in with a provider sid too", async () => {
    const store = MemoryRevocationStore();
    await recordJwtSession(store, "with-sid", "provider-session");
    await recordJwtSession(store, "without-sid");
    const response = await deliver(jwtConfig(store), { sid: undefined });
    expect(response.status).toBe(200);
    expect(await revoked(store, "with-sid")).toBe(true);
    expect(await revoked(store, "without-sid")).toBe(true);
    expect(await revoked(store, "never-listed")).toBe(true);
  });

  test('a token without sub names no user: not even one whose sub is the string "undefined"', async () => {
    const store = MemoryRevocationStore();
    const response = await deliver(jwtConfig(store), { sub: undefined });
    expect(response.status).toBe(400);
    expect(await revoked(store, "s1", "oidc:undefined")).toBe(false);
  });

  test("a token with an empty sub and a sid is refused: no session can be found by it", async () => {
    const response = await deliver(jwtConfig(MemoryRevocationStore()), { sub: "" });
    expect(response.status).toBe(400);
  });

  test("a user's revocation lasts as long as a session can: still in force an hour later", async () => {
    freezeClock();
    const store = MemoryRevocationStore();
    expect((await deliver(jwtConfig(store), { sid: undefined })).status).toBe(200);
    advanceClock(3600);
    expect(await store.check({ userId: JWT_USER, sessionId: "s1", issuedAt: now() - 7200 })).toBe(
      true,
    );
  });

  test("JWT sessions with an adapter end through the revocation store", async () => {
    const adapter = MemoryAdapter();
    const user = await adapter.createUser({
      id: "u1",
      email: "u@example.com",
      emailVerified: null,
    });
    await adapter.linkAccount({
      userId: user.id,
      type: "oidc",
      provider: "oidc",
      providerAccountId: "user-1",
    });
    const store = MemoryRevocationStore();
    const response = await deliver(jwtConfig(store, { adapter }), { sid: undefined });
    expect(response.status).toBe(200);
    expect(await revoked(store, "s1", user.id)).toBe(true);
  });
});

describe("database sessions", () => {
  async function seeded(adapter: InMemoryAdapter) {
    const user = await adapter.createUser({
      id: "u1",
      email: "u@example.com",
      emailVerified: null,
    });
    await adapter.linkAccount({
      userId: user.id,
      type: "oidc",
      provider: "oidc",
      providerAccountId: "user-1",
    });
    const expires = new Date(Date.now() + 3_600_000);
    await adapter.createSession({
      sessionToken: "with-sid",
      userId: user.id,
      expires,
      providerSid: "provider-session",
    });
    await adapter.createSession({ sessionToken: "without-sid", userId: user.id, expires });
    return user;
  }
  const alive = async (adapter: Adapter, token: string) =>
    (await adapter.getSessionAndUser?.(token)) != null;

  test("a token with sub and no sid ends every session of the user", async () => {
    const adapter = MemoryAdapter();
    await seeded(adapter);
    expect((await deliver(databaseConfig(adapter), { sid: undefined })).status).toBe(200);
    expect(await alive(adapter, "with-sid")).toBe(false);
    expect(await alive(adapter, "without-sid")).toBe(false);
  });

  test("a token whose sid matches a session ends only that one", async () => {
    const adapter = MemoryAdapter();
    await seeded(adapter);
    expect((await deliver(databaseConfig(adapter))).status).toBe(200);
    expect(await alive(adapter, "with-sid")).toBe(false);
    expect(await alive(adapter, "without-sid")).toBe(true);
  });

  test("an adapter without deleteSessionsByUserId has the user's sessions ended one by one", async () => {
    const adapter = MemoryAdapter();
    await seeded(adapter);
    const { deleteSessionsByUserId: _, ...partial } = adapter;
    const response = await deliver(databaseConfig(partial), { sid: undefined });
    expect(response.status).toBe(200);
    expect(await alive(adapter, "with-sid")).toBe(false);
    expect(await alive(adapter, "without-sid")).toBe(false);
  });

  test("an adapter without listSessionsByUserId still has every session of the user ended", async () => {
    const adapter = MemoryAdapter();
    await seeded(adapter);
    const { listSessionsByUserId: _, ...partial } = adapter;
    const response = await deliver(databaseConfig(partial));
    expect(response.status).toBe(200);
    expect(await alive(adapter, "with-sid")).toBe(false);
    expect(await alive(adapter, "without-sid")).toBe(false);
  });

  test("an adapter with neither bulk method answers 200 and ends nothing it cannot find", async () => {
    const adapter = MemoryAdapter();
    await seeded(adapter);
    const { listSessionsByUserId: _l, deleteSessionsByUserId: _d, ...partial } = adapter;
    const response = await deliver(databaseConfig(partial));
    expect(response.status).toBe(200);
    expect(await alive(adapter, "with-sid")).toBe(true);
  });
});
