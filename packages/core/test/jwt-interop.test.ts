/**
 * Session tokens are interchangeable with Auth.js (@auth/core 0.41.3) in both directions: what
 * one library mints, the other reads, down to the cookies a real sign-in sets.
 */
import { hkdfSync } from "node:crypto";
import { Auth as AuthJs, type AuthConfig as AuthJsConfig } from "@auth/core";
import {
  decode as authjsDecode,
  encode as authjsEncode,
  getToken as authjsGetToken,
} from "@auth/core/jwt";
import AuthJsCredentials from "@auth/core/providers/credentials";
import { Auth } from "@gatehousejs/core";
import { decode, encode, getToken, type JWT } from "@gatehousejs/core/jwt";
import type { AuthConfig } from "@gatehousejs/core/types";
import { base64url, calculateJwkThumbprint, EncryptJWT } from "jose";
import { describe, expect, it } from "vitest";
import { alice, credentialsConfig, csrfToken, Jar, SECRET, send, signInAlice } from "./helpers.js";

const PLAIN = "authjs.session-token";
const SECURE = "__Secure-authjs.session-token";
const salts = [PLAIN, SECURE];

const quietLogger = { error() {}, warn() {}, debug() {} };

const unicodeClaims = {
  sub: "user-ü",
  name: "Zoë Ångström 🦊",
  email: "zoë@exämple.test",
  note: '名前 — «quotes» "escaped" \\ \u2028 \u0000 end',
};

const largeClaims = {
  sub: "big",
  roles: Array.from({ length: 200 }, (_, i) => `role-${i}-${"r".repeat(20)}`),
};

/** Both directions, for a given payload and secrets. */
async function gatehouseToAuthjs(
  token: JWT,
  salt: string,
  writeSecret: string | string[],
  readSecret: string | string[] = writeSecret,
) {
  const jwe = await encode({ token, salt, secret: writeSecret });
  return authjsDecode({ token: jwe, salt, secret: readSecret });
}

async function authjsToGatehouse(
  token: JWT,
  salt: string,
  writeSecret: string | string[],
  readSecret: string | string[] = writeSecret,
) {
  const jwe = await authjsEncode({ token, salt, secret: writeSecret });
  return decode({ token: jwe, salt, secret: readSecret });
}

describe("encode/decode interop", () => {
  for (const salt of salts) {
    describe(`salt ${salt}`, () => {
      it("Gatehouse encode → Auth.js decode, string secret", async () => {
        const claims = await gatehouseToAuthjs({ sub: "42", name: "Ada" }, salt, SECRET);
        expect(claims).toMatchObject({ sub: "42", name: "Ada" });
        expect(claims!.exp! - claims!.iat!).toBe(30 * 24 * 60 * 60);
        expect(claims!.jti).toEqual(expect.any(String));
      });

      it("Auth.js encode → Gatehouse decode, string secret", async () => {
        const jwe = await authjsEncode({ token: { sub: "42" }, salt, secret: SECRET, maxAge: 90 });
        const ours = await decode({ token: jwe, salt, secret: SECRET });
        expect(ours).toEqual(await authjsDecode({ token: jwe, salt, secret: SECRET }));
        expect(ours!.exp! - ours!.iat!).toBe(90);
      });

      it("both produce identical protected headers for the same secret and salt", async () => {
        const ours = await encode({ token: {}, salt, secret: SECRET });
        const theirs = await authjsEncode({ token: {}, salt, secret: SECRET });
        expect(ours.split(".")[0]).toBe(theirs.split(".")[0]);
      });

      it("unicode claims survive both directions", async () => {
        expect(await gatehouseToAuthjs(unicodeClaims, salt, SECRET)).toMatchObject(unicodeClaims);
        expect(await authjsToGatehouse(unicodeClaims, salt, SECRET)).toMatchObject(unicodeClaims);
      });

      it("payloads over 4 KB survive both directions", async () => {
        expect(JSON.stringify(largeClaims).length).toBeGreaterThan(4096);
        expect(await gatehouseToAuthjs(largeClaims, salt, SECRET)).toMatchObject(largeClaims);
        expect(await authjsToGatehouse(largeClaims, salt, SECRET)).toMatchObject(largeClaims);
      });

      it("a token for one salt is rejected under the other by both", async () => {
        const other = salt === PLAIN ? SECURE : PLAIN;
        const ours = await encode({ token: { sub: "1" }, salt, secret: SECRET });
        await expect(authjsDecode({ token: ours, salt: other, secret: SECRET })).rejects.toThrow();
        const theirs = await authjsEncode({ token: { sub: "1" }, salt, secret: SECRET });
        await expect(decode({ token: theirs, salt: other, secret: SECRET })).rejects.toThrow();
      });
    });
  }

  describe("secret rotation", () => {
    it("Auth.js [new, old] → Gatehouse [newer, new, old]", async () => {
      const claims = await authjsToGatehouse(
        { sub: "r" },
        PLAIN,
        ["new", "old"],
        ["newer", "new", "old"],
      );
      expect(claims).toMatchObject({ sub: "r" });
    });

    it("Auth.js [old] → Gatehouse [new, old]", async () => {
      expect(await authjsToGatehouse({ sub: "r" }, SECURE, ["old"], ["new", "old"])).toMatchObject({
        sub: "r",
      });
    });

    it("Gatehouse [new, old] → Auth.js [newer, new, old]", async () => {
      const claims = await gatehouseToAuthjs(
        { sub: "r" },
        PLAIN,
        ["new", "old"],
        ["newer", "new", "old"],
      );
      expect(claims).toMatchObject({ sub: "r" });
    });

    it("Gatehouse [old] → Auth.js [new, old]", async () => {
      expect(await gatehouseToAuthjs({ sub: "r" }, SECURE, "old", ["new", "old"])).toMatchObject({
        sub: "r",
      });
    });

    it("a retired secret is rejected by both", async () => {
      const theirs = await authjsEncode({ token: { sub: "r" }, salt: PLAIN, secret: ["old"] });
      await expect(
        decode({ token: theirs, salt: PLAIN, secret: ["newer", "new"] }),
      ).rejects.toThrow();
      const ours = await encode({ token: { sub: "r" }, salt: PLAIN, secret: ["old"] });
      await expect(
        authjsDecode({ token: ours, salt: PLAIN, secret: ["newer", "new"] }),
      ).rejects.toThrow();
    });

    it("a token without kid is read by Gatehouse with any listed secret, by Auth.js only with the first", async () => {
      // Documented Gatehouse fix: Auth.js tries only the first secret when the header has no kid.
      const key = new Uint8Array(
        hkdfSync("sha256", "old", PLAIN, `Auth.js Generated Encryption Key (${PLAIN})`, 64),
      );
      const jwe = await new EncryptJWT({ sub: "no-kid" })
        .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" })
        .encrypt(key);
      expect(await decode({ token: jwe, salt: PLAIN, secret: ["new", "old"] })).toMatchObject({
        sub: "no-kid",
      });
      await expect(
        authjsDecode({ token: jwe, salt: PLAIN, secret: ["new", "old"] }),
      ).rejects.toThrow();
      expect(await authjsDecode({ token: jwe, salt: PLAIN, secret: ["old", "new"] })).toMatchObject(
        { sub: "no-kid" },
      );
    });

    it("both read an A256GCM token with a SHA-256 kid", async () => {
      const key = new Uint8Array(
        hkdfSync("sha256", "new", SECURE, `Auth.js Generated Encryption Key (${SECURE})`, 32),
      );
      const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha256");
      const jwe = await new EncryptJWT({ sub: "gcm" })
        .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
        .encrypt(key);
      for (const read of [decode, authjsDecode]) {
        expect(await read({ token: jwe, salt: SECURE, secret: ["newer", "new"] })).toMatchObject({
          sub: "gcm",
        });
      }
    });

    it("both encrypt with the first secret of the list (same kid)", async () => {
      const ours = await encode({ token: {}, salt: PLAIN, secret: ["a", "b"] });
      const theirs = await authjsEncode({ token: {}, salt: PLAIN, secret: ["a", "b"] });
      expect(ours.split(".")[0]).toBe(theirs.split(".")[0]);
    });
  });
});

// --- Full sign-in flows -------------------------------------------------------------------------

const PLAIN_ORIGIN = "http://localhost:3000";
const SECURE_ORIGIN = "https://app.example";

function authjsConfig(extraClaims: Record<string, unknown> = {}): AuthJsConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: quietLogger,
    providers: [
      AuthJsCredentials({
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize: (credentials) =>
          credentials.username === "alice" && credentials.password === "wonderland"
            ? { ...alice }
            : null,
      }),
    ],
    callbacks: { jwt: ({ token }) => ({ ...token, ...extraClaims }) },
  };
}

function gatehouseConfig(extraClaims: Record<string, unknown> = {}): AuthConfig {
  return credentialsConfig({
    callbacks: { jwt: ({ token }) => ({ ...token, ...extraClaims }) },
  });
}

async function authjsSend(
  config: AuthJsConfig,
  jar: Jar,
  url: string,
  form?: Record<string, string>,
): Promise<Response> {
  const headers = new Headers();
  if (jar.cookies.size > 0) headers.set("cookie", jar.header());
  if (form) headers.set("content-type", "application/x-www-form-urlencoded");
  const request = new Request(url, {
    method: form ? "POST" : "GET",
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return jar.take(await AuthJs(request, config));
}

/** Signs alice in through @auth/core's own handler; returns the jar holding its cookies. */
async function authjsSignIn(origin: string, config: AuthJsConfig): Promise<Jar> {
  const jar = new Jar();
  const csrf = await authjsSend(config, jar, `${origin}/auth/csrf`);
  const { csrfToken: token } = (await csrf.json()) as { csrfToken: string };
  const response = await authjsSend(config, jar, `${origin}/auth/callback/credentials`, {
    csrfToken: token,
    username: "alice",
    password: "wonderland",
  });
  expect(response.status).toBe(302);
  return jar;
}

/** Signs alice in through Gatehouse's handler on the given origin. */
async function gatehouseSignIn(origin: string, config: AuthConfig): Promise<Jar> {
  const jar = new Jar();
  if (origin === PLAIN_ORIGIN) {
    expect((await signInAlice(config, jar)).status).toBe(302);
    return jar;
  }
  const token = await csrfToken(config, jar, origin);
  const response = await send(config, jar, "/auth/callback/credentials", {
    origin,
    form: { csrfToken: token, username: "alice", password: "wonderland" },
  });
  expect(response.status).toBe(302);
  return jar;
}

const sessionCookies = (jar: Jar, name: string) =>
  [...jar.cookies.keys()].filter((key) => key === name || key.startsWith(`${name}.`));

const withCookies = (origin: string, jar: Jar) =>
  new Request(`${origin}/api/me`, { headers: { cookie: jar.header() } });

const aliceClaims = {
  sub: alice.id,
  name: alice.name,
  email: alice.email,
  picture: alice.image,
};

describe("session cookies across libraries", () => {
  for (const [origin, name, secureCookie] of [
    [PLAIN_ORIGIN, PLAIN, false],
    [SECURE_ORIGIN, SECURE, true],
  ] as const) {
    describe(origin, () => {
      it("Gatehouse getToken reads the cookie set by an @auth/core sign-in", async () => {
        const jar = await authjsSignIn(origin, authjsConfig());
        expect(sessionCookies(jar, name)).toEqual([name]);
        const token = await getToken({
          req: withCookies(origin, jar),
          secret: SECRET,
          secureCookie,
        });
        expect(token).toMatchObject(aliceClaims);
      });

      it("Gatehouse getToken reads the chunked cookies of an @auth/core sign-in", async () => {
        const jar = await authjsSignIn(origin, authjsConfig({ roles: largeClaims.roles }));
        expect(sessionCookies(jar, name).length).toBeGreaterThan(1);
        const token = await getToken({
          req: withCookies(origin, jar),
          secret: SECRET,
          secureCookie,
        });
        expect(token).toMatchObject({ ...aliceClaims, roles: largeClaims.roles });
      });

      it("@auth/core getToken reads the cookie set by a Gatehouse sign-in", async () => {
        const jar = await gatehouseSignIn(origin, gatehouseConfig());
        expect(sessionCookies(jar, name)).toEqual([name]);
        const token = await authjsGetToken({
          req: withCookies(origin, jar),
          secret: SECRET,
          secureCookie,
          logger: quietLogger,
        });
        expect(token).toMatchObject(aliceClaims);
      });

      it("@auth/core getToken reads the chunked cookies of a Gatehouse sign-in", async () => {
        const jar = await gatehouseSignIn(origin, gatehouseConfig({ roles: largeClaims.roles }));
        expect(sessionCookies(jar, name).length).toBeGreaterThan(1);
        const token = await authjsGetToken({
          req: withCookies(origin, jar),
          secret: SECRET,
          secureCookie,
          logger: quietLogger,
        });
        expect(token).toMatchObject({ ...aliceClaims, roles: largeClaims.roles });
      });

      it("each handler's /session accepts the other's session cookie", async () => {
        const fromAuthjs = await authjsSignIn(origin, authjsConfig());
        const ours = await Auth(
          new Request(`${origin}/auth/session`, { headers: { cookie: fromAuthjs.header() } }),
          credentialsConfig(),
        );
        expect(await ours.json()).toMatchObject({
          user: { name: alice.name, email: alice.email, image: alice.image },
        });

        const fromGatehouse = await gatehouseSignIn(origin, gatehouseConfig());
        const theirs = await AuthJs(
          new Request(`${origin}/auth/session`, { headers: { cookie: fromGatehouse.header() } }),
          authjsConfig(),
        );
        expect(await theirs.json()).toMatchObject({
          user: { name: alice.name, email: alice.email, image: alice.image },
        });
      });
    });
  }
});
