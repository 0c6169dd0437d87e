/**
 * The OAuth check cookies (state, PKCE verifier, nonce) when they are present but wrong: tampered
 * with, sealed under another secret, swapped with each other, emptied or expired. Each is refused
 * as `InvalidCheck` and cleared; only the cookie exactly as issued completes the sign-in.
 */
import { decode, encode } from "@gatehousejs/core/jwt";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, setCookies } from "./helpers.js";
import {
  atProvider,
  beginSignIn,
  deliver,
  expectCleared,
  expectNoSessionCookie,
  expectOneError,
  NONCE_COOKIE,
  PKCE_COOKIE,
  type ProviderAnswer,
  postSignIn,
  SESSION_COOKIE,
  STATE_COOKIE,
  signInError,
} from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

const OTHER_SECRET = "another-secret-with-enough-entropy-98765";
const CHECKS = [
  ["state", STATE_COOKIE],
  ["pkce", PKCE_COOKIE],
  ["nonce", NONCE_COOKIE],
] as const;

function setup() {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [
      OIDC({
        issuer: op.issuer,
        clientId: op.clients.basic.clientId,
        clientSecret: op.clients.basic.clientSecret,
        checks: ["pkce", "state", "nonce"],
      }),
    ],
  };
  return { config, logger };
}

/** A sign-in up to the provider's answer, with the check cookies in the jar. */
async function started() {
  const { config, logger } = setup();
  const jar = new Jar();
  const answer: ProviderAnswer = await atProvider(await beginSignIn(config, jar, "oidc"));
  return { config, logger, jar, answer };
}

/** The payload sealed in a check cookie. */
async function opened(jar: Jar, cookie: string) {
  return (await decode({ token: jar.cookies.get(cookie)!, secret: SECRET, salt: cookie })) as {
    value: string;
    provider: string;
    exp: number;
  };
}

/** Seals a check payload the way Gatehouse does, with the knobs a forger would turn. */
function seal(
  cookie: string,
  token: Record<string, unknown>,
  { secret = SECRET, maxAge = 900 }: { secret?: string; maxAge?: number } = {},
) {
  return encode({ token, secret, salt: cookie, maxAge });
}

async function expectRefused(
  response: Response,
  logger: ReturnType<typeof recordingLogger>,
  message: RegExp,
) {
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(signInError("InvalidCheck"));
  expectNoSessionCookie(response);
  return expectOneError(logger, "InvalidCheck", message);
}

describe("check cookies that are present but wrong", () => {
  test("re-sealed exactly as issued (same value, provider and secret): the sign-in completes", async () => {
    const { config, jar, answer } = await started();
    for (const [, cookie] of CHECKS) {
      const { value, provider } = await opened(jar, cookie);
      jar.cookies.set(cookie, await seal(cookie, { value, provider }));
    }
    const response = await deliver(config, jar, answer);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(setCookies(response).get(SESSION_COOKIE)?.value).toBeTruthy();
  });

  test.each(CHECKS)("a tampered %s cookie is refused and cleared", async (check, cookie) => {
    const { config, logger, jar, answer } = await started();
    const sealed = jar.cookies.get(cookie)!;
    const parts = sealed.split(".");
    const ct = parts[3]!;
    parts[3] = (ct[0] === "A" ? "B" : "A") + ct.slice(1);
    jar.cookies.set(cookie, parts.join("."));
    const response = await deliver(config, jar, answer);
    const logged = await expectRefused(
      response,
      logger,
      new RegExp(`${check} cookie could not be read`),
    );
    // The log says why: the decryption failure is kept as the cause.
    expect(logged).toMatch(/ <- JWTSessionError: /);
    expectCleared(response, [cookie]);
  });

  test.each(CHECKS)("a %s cookie sealed under another secret is refused", async (check, cookie) => {
    const { config, logger, jar, answer } = await started();
    const { value, provider } = await opened(jar, cookie);
    jar.cookies.set(cookie, await seal(cookie, { value, provider }, { secret: OTHER_SECRET }));
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, new RegExp(`${check} cookie could not be read`));
    expectCleared(response, [cookie]);
  });

  test("the state and PKCE cookies swapped with each other are refused", async () => {
    const { config, logger, jar, answer } = await started();
    const state = jar.cookies.get(STATE_COOKIE)!;
    jar.cookies.set(STATE_COOKIE, jar.cookies.get(PKCE_COOKIE)!);
    jar.cookies.set(PKCE_COOKIE, state);
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, /cookie could not be read/);
  });

  test("a nonce cookie holding the state cookie's sealed value is refused", async () => {
    const { config, logger, jar, answer } = await started();
    jar.cookies.set(NONCE_COOKIE, jar.cookies.get(STATE_COOKIE)!);
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, /nonce cookie could not be read/);
  });

  test.each([
    ["no value", { provider: "oidc" }],
    ["a number as value", { value: 42, provider: "oidc" }],
    ["a null value", { value: null, provider: "oidc" }],
  ])("a state cookie with %s is refused", async (_, payload) => {
    const { config, logger, jar, answer } = await started();
    jar.cookies.set(STATE_COOKIE, await seal(STATE_COOKIE, payload));
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, /state cookie holds no value/);
  });

  test("a PKCE cookie with the right value but no provider is refused", async () => {
    const { config, logger, jar, answer } = await started();
    const { value } = await opened(jar, PKCE_COOKIE);
    jar.cookies.set(PKCE_COOKIE, await seal(PKCE_COOKIE, { value }));
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, /pkce cookie belongs to another provider/);
  });

  test("an expired state cookie is refused", async () => {
    const { config, logger, jar, answer } = await started();
    const { value, provider } = await opened(jar, STATE_COOKIE);
    jar.cookies.set(STATE_COOKIE, await seal(STATE_COOKIE, { value, provider }, { maxAge: -60 }));
    const response = await deliver(config, jar, answer);
    await expectRefused(response, logger, /state cookie could not be read/);
  });
});

describe("issued check cookies", () => {
  test("are sealed for 15 minutes and bound to the provider", async () => {
    const { jar } = await started();
    const now = Math.floor(Date.now() / 1000);
    for (const [, cookie] of CHECKS) {
      const { provider, exp } = await opened(jar, cookie);
      expect(provider).toBe("oidc");
      expect(exp - now).toBeGreaterThanOrEqual(899);
      expect(exp - now).toBeLessThanOrEqual(901);
    }
  });

  test("carry Max-Age=900 and a matching Expires, HttpOnly, SameSite=Lax", async () => {
    const { config } = setup();
    const jar = new Jar();
    const response = await postSignIn(config, jar, "oidc");
    const cookies = setCookies(response);
    for (const [, cookie] of CHECKS) {
      const raw = cookies.get(cookie)!.raw;
      expect(raw).toMatch(/; Max-Age=900; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
      const expires = Date.parse(raw.match(/Expires=([^;]+)/)![1]!);
      expect(Math.abs(expires - (Date.now() + 900_000))).toBeLessThan(5000);
    }
  });
});

describe("the state parameter (the wire format an Auth.js redirect proxy reads)", () => {
  async function stateOf(overrides: Partial<AuthConfig>) {
    const { config } = setup();
    const url = await beginSignIn({ ...config, ...overrides }, new Jar(), "oidc");
    const state = url.searchParams.get("state")!;
    const payload = (await decode({ token: state, secret: SECRET, salt: "encodedState" })) as {
      random?: unknown;
      origin?: unknown;
      iat: number;
      exp: number;
    };
    return { state, payload };
  }

  test("is a JWE under the salt encodedState holding a random value, for 15 minutes", async () => {
    const { payload } = await stateOf({});
    expect(payload.random).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload).not.toHaveProperty("origin");
    expect(payload.exp - payload.iat).toBe(900);
  });

  test("through a redirect proxy it also names this deployment's callback URL", async () => {
    const { payload } = await stateOf({ redirectProxyUrl: "https://proxy.example/auth" });
    expect(payload.origin).toBe(`${ORIGIN}/auth/callback/oidc`);
    expect(payload.random).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("each sign-in gets its own state", async () => {
    const [a, b] = await Promise.all([stateOf({}), stateOf({})]);
    expect(a.payload.random).not.toBe(b.payload.random);
  });
});

test("a redirect proxy that cannot read a callback's state refuses it, and says why", async () => {
  // This deployment is its own redirect proxy: callbacks carrying a state it issued come back to
  // it, and it reads the state to find where the sign-in started.
  const { config: base, logger } = setup();
  const config = { ...base, redirectProxyUrl: `${ORIGIN}/auth`, redirectProxyOrigins: [ORIGIN] };
  const jar = new Jar();
  const answer = await atProvider(await beginSignIn(config, jar, "oidc"));
  const url = new URL(answer.url);
  const state = url.searchParams.get("state")!;
  url.searchParams.set("state", `${state.slice(0, -2)}${state.endsWith("AA") ? "BA" : "AA"}`);
  const response = await deliver(config, jar, { url });
  const logged = await expectRefused(response, logger, /state parameter could not be read/);
  expect(logged).toMatch(/ <- JWTSessionError: /);
});
