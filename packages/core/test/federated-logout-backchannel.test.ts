/**
 * The back-channel logout receiver against a real OpenID provider's JWKS: logout tokens signed with
 * the provider's own key end the app's sessions (database strategy, and JWT strategy through the
 * revocation store); forged, expired, wrong-audience, replayed and malformed ones answer 400 and
 * end nothing.
 */
import { randomUUID } from "node:crypto";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import OIDC from "@gatehousejs/core/providers/oidc";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Jar, recordingLogger, SECRET, send } from "./helpers.js";
import { sessionOf, signInThrough } from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

const EVENT = "http://schemas.openid.net/event/backchannel-logout";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

function config(strategy: "database" | "jwt"): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    ...(strategy === "database"
      ? { adapter: MemoryAdapter(), session: { strategy } }
      : { session: { strategy, revocation: { store: MemoryRevocationStore() } } }),
    providers: [
      OIDC({
        id: "oidc",
        issuer: op.issuer,
        clientId: op.clients.basic.clientId,
        clientSecret: op.clients.basic.clientSecret,
      }),
    ],
  };
}

/** The claims of a valid logout token for `user-1`; `over` replaces or (with undefined) drops. */
function claims(over: Record<string, unknown> = {}): JWTPayload {
  const base: Record<string, unknown> = {
    iss: op.issuer,
    aud: op.clients.basic.clientId,
    iat: Math.floor(Date.now() / 1000),
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

function deliverLogout(cfg: AuthConfig, token: string) {
  return send(cfg, new Jar(), "/auth/backchannel-logout/oidc", { form: { logout_token: token } });
}

async function signedIn(cfg: AuthConfig): Promise<Jar> {
  const jar = new Jar();
  await signInThrough(cfg, jar, "oidc");
  expect((await sessionOf(cfg, jar))?.user?.email).toBe("user-1@example.com");
  return jar;
}

for (const strategy of ["database", "jwt"] as const) {
  describe(`${strategy} strategy`, () => {
    test("a valid logout token ends the user's session; the next request is signed out", async () => {
      const cfg = config(strategy);
      const jar = await signedIn(cfg);
      const other = await signedIn(cfg);
      const response = await deliverLogout(cfg, await op.signJwt(claims()));
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await sessionOf(cfg, jar)).toBeNull();
      expect(await sessionOf(cfg, other)).toBeNull();
    });

    test("a logout token for another user ends nothing of this one", async () => {
      const cfg = config(strategy);
      const jar = await signedIn(cfg);
      const response = await deliverLogout(cfg, await op.signJwt(claims({ sub: "user-9" })));
      expect(response.status).toBe(200);
      expect(await sessionOf(cfg, jar)).not.toBeNull();
    });

    const refused: [string, () => Promise<string>][] = [
      [
        "forged (signed with a key not in the provider's JWKS)",
        async () => {
          const { privateKey } = await generateKeyPair("RS256");
          return new SignJWT(claims()).setProtectedHeader({ alg: "RS256" }).sign(privateKey);
        },
      ],
      [
        "expired (iat an hour ago)",
        () => op.signJwt(claims({ iat: Math.floor(Date.now() / 1000) - 3600 })),
      ],
      ["exp in the past", () => op.signJwt(claims({ exp: Math.floor(Date.now() / 1000) - 600 }))],
      ["wrong audience", () => op.signJwt(claims({ aud: op.clients.post.clientId }))],
      ["wrong issuer", () => op.signJwt(claims({ iss: "http://127.0.0.1:1" }))],
      ["without the logout event", () => op.signJwt(claims({ events: { other: {} } }))],
      ["with a nonce", () => op.signJwt(claims({ nonce: "n" }))],
      ["without jti", () => op.signJwt(claims({ jti: undefined }))],
      ["without sub and sid", () => op.signJwt(claims({ sub: undefined, sid: undefined }))],
      ["not a JWT", async () => "not-a-jwt"],
    ];
    for (const [name, make] of refused) {
      test(`a logout token ${name} answers 400 invalid_request and ends nothing`, async () => {
        const cfg = config(strategy);
        const jar = await signedIn(cfg);
        const response = await deliverLogout(cfg, await make());
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: "invalid_request" });
        expect(await sessionOf(cfg, jar)).not.toBeNull();
      });
    }

    test("a replayed logout token is refused and ends nothing", async () => {
      const cfg = config(strategy);
      const token = await op.signJwt(claims());
      await signedIn(cfg);
      expect((await deliverLogout(cfg, token)).status).toBe(200);
      // Sessions started after the first delivery must survive its replay.
      await new Promise((r) => setTimeout(r, 1100));
      const jar = await signedIn(cfg);
      const replay = await deliverLogout(cfg, token);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toEqual({ error: "invalid_request" });
      expect(await sessionOf(cfg, jar)).not.toBeNull();
    });
  });
}

test("no logout_token, or a GET, is refused", async () => {
  const cfg = config("database");
  const empty = await send(cfg, new Jar(), "/auth/backchannel-logout/oidc", { form: {} });
  expect(empty.status).toBe(400);
  expect(await empty.json()).toEqual({ error: "invalid_request" });
  const get = await send(cfg, new Jar(), "/auth/backchannel-logout/oidc");
  expect(get.status).toBe(405);
  const unknown = await send(cfg, new Jar(), "/auth/backchannel-logout/nope", {
    form: { logout_token: "x" },
  });
  expect(unknown.status).toBe(400);
});
