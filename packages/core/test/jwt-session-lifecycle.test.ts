/**
 * The life of a JWT session cookie: what the `jwt` callback's answer does at sign-in and on each
 * check, when the cookie is re-issued, and what sign-out does with a token it cannot read.
 */
import { Auth } from "@gatehousejs/core";
import { decode, encode } from "@gatehousejs/core/jwt";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const COOKIE = "authjs.session-token";

afterEach(() => {
  vi.useRealTimers();
});

const tokenOf = (claims: JWT, secret = SECRET) => encode({ token: claims, secret, salt: COOKIE });

/** A token issued `secondsAgo` seconds ago (its `iat`), valid for 30 days from then. */
async function issuedAgo(secondsAgo: number, claims: JWT = { sub: "1", name: "A" }) {
  vi.useFakeTimers({ now: Date.now() - secondsAgo * 1000, toFake: ["Date"] });
  const token = await tokenOf(claims);
  vi.useRealTimers();
  return token;
}

async function check(cookie: string, config: AuthConfig) {
  const response = await Auth(
    new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }),
    config,
  );
  return {
    body: (await response.json()) as { user?: { name?: string }; expires?: string } | null,
    cookies: setCookies(response),
  };
}

describe("the jwt callback at sign-in", () => {
  it.each([
    ["null", null],
    ["undefined", undefined],
  ])("returning %s signs nobody in and clears a stale session", async (_, answer) => {
    const config = credentialsConfig({ callbacks: { jwt: () => answer as unknown as JWT } });
    const jar = new Jar();
    jar.cookies.set(COOKIE, "stale");
    jar.cookies.set(`${COOKIE}.0`, "stale-chunk");
    const response = await signInAlice(config, jar);
    const written = setCookies(response);
    expect(written.get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(written.get(`${COOKIE}.0`)?.raw).toMatch(/Max-Age=0/);
    expect(jar.cookies.has(COOKIE)).toBe(false);
    expect(await (await send(config, jar, "/auth/session")).json()).toBeNull();
  });

  it("receives the user's claims, the user, and trigger signIn", async () => {
    const jwt = vi.fn(({ token }: { token: JWT }) => token);
    const config = credentialsConfig({ callbacks: { jwt } });
    await signInAlice(config, new Jar());
    expect(jwt).toHaveBeenCalledTimes(1);
    expect(jwt.mock.calls[0]![0]).toMatchObject({
      token: { name: alice.name, email: alice.email, picture: alice.image, sub: alice.id },
      user: { id: alice.id },
      trigger: "signIn",
      isNewUser: false,
    });
  });

  it("what it returns is what the cookie holds", async () => {
    const config = credentialsConfig({ callbacks: { jwt: () => ({ sub: "x", role: "admin" }) } });
    const response = await signInAlice(config, new Jar());
    const token = await decode({
      token: setCookies(response).get(COOKIE)!.value,
      secret: SECRET,
      salt: COOKIE,
    });
    expect(token).toMatchObject({ sub: "x", role: "admin" });
    expect(token).not.toHaveProperty("name");
  });
});

describe("the jwt callback on a session check", () => {
  it("returning undefined ends the session: null, and every chunk cleared", async () => {
    const config = credentialsConfig({ callbacks: { jwt: () => undefined as unknown as JWT } });
    const token = await tokenOf({ sub: "1" });
    const half = Math.ceil(token.length / 2);
    const { body, cookies } = await check(
      `${COOKIE}.0=${token.slice(0, half)}; ${COOKIE}.1=${token.slice(half)}`,
      config,
    );
    expect(body).toBeNull();
    expect([...cookies.keys()].sort()).toEqual([`${COOKIE}.0`, `${COOKIE}.1`]);
    for (const [, { raw }] of cookies) expect(raw).toMatch(/Max-Age=0/);
  });

  it("a callback that returns the token unchanged does not re-issue it", async () => {
    const config = credentialsConfig({ callbacks: { jwt: ({ token }) => ({ ...token }) } });
    const { body, cookies } = await check(`${COOKIE}=${await tokenOf({ sub: "1" })}`, config);
    expect(body?.user).toBeDefined();
    expect(cookies.size).toBe(0);
  });
});

describe("re-issuing", () => {
  const day = 86400;

  it("without a session cookie nothing is decoded and nothing is written", async () => {
    const decodeToken = vi.fn(() => ({ sub: "1", name: "from nowhere" }));
    const config = credentialsConfig({ jwt: { decode: decodeToken } });
    const { body, cookies } = await check("other=1", config);
    expect(body).toBeNull();
    expect(cookies.size).toBe(0);
    expect(decodeToken).not.toHaveBeenCalled();
  });

  it("an update re-issues the cookie even when nothing changed and it is fresh", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const before = jar.cookies.get(COOKIE);
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/session", { json: { csrfToken: csrf } });
    expect(response.status).toBe(200);
    const reissued = setCookies(response).get(COOKIE);
    expect(reissued?.value).toBeTruthy();
    expect(reissued?.value).not.toBe(before);
  });

  it("with the default jwt callback, a fresh token is not re-issued", async () => {
    const { body, cookies } = await check(
      `${COOKIE}=${await tokenOf({ sub: "1" })}`,
      credentialsConfig(),
    );
    expect(body?.user).toBeDefined();
    expect(cookies.size).toBe(0);
  });

  it("at exactly updateAge seconds the cookie is re-issued; a second earlier it is not", async () => {
    const config = credentialsConfig({ session: { updateAge: day } });
    expect((await check(`${COOKIE}=${await issuedAgo(day)}`, config)).cookies.has(COOKIE)).toBe(
      true,
    );
    expect((await check(`${COOKIE}=${await issuedAgo(day - 5)}`, config)).cookies.has(COOKIE)).toBe(
      false,
    );
  });

  it("a token without iat counts as old: it is re-issued", async () => {
    const config = credentialsConfig({
      jwt: { decode: () => ({ sub: "1", name: "no-iat" }) },
    });
    const { body, cookies } = await check(`${COOKIE}=anything`, config);
    expect(body?.user?.name).toBe("no-iat");
    expect(cookies.has(COOKIE)).toBe(true);
  });

  it("without re-issuing, expires is the token's iat plus session.maxAge", async () => {
    const config = credentialsConfig({ session: { maxAge: 7 * day, updateAge: day } });
    const token = await issuedAgo(3600);
    const { iat } = (await decode({ token, secret: SECRET, salt: COOKIE })) as JWT;
    const { body, cookies } = await check(`${COOKIE}=${token}`, config);
    expect(cookies.size).toBe(0);
    expect(body?.expires).toBe(new Date((iat! + 7 * day) * 1000).toISOString());
  });

  it("when re-issued, expires is the new cookie's expiry", async () => {
    const config = credentialsConfig({ session: { maxAge: 7 * day, updateAge: 0 } });
    const { body, cookies } = await check(`${COOKIE}=${await issuedAgo(3600)}`, config);
    const expires = cookies.get(COOKIE)!.raw.match(/Expires=([^;]+)/)![1]!;
    // The cookie's Expires has whole seconds; the session's expires has milliseconds.
    expect(Math.floor(Date.parse(body!.expires!) / 1000) * 1000).toBe(Date.parse(expires));
  });
});

describe("a token that cannot be read", () => {
  it("on a check: null, the cookie cleared, one JWTSessionError", async () => {
    const logger = recordingLogger();
    const config = credentialsConfig({ logger });
    const { body, cookies } = await check(
      `${COOKIE}=${await tokenOf({ sub: "1" }, "x".repeat(40))}`,
      config,
    );
    expect(body).toBeNull();
    expect(cookies.get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect((logger.error.mock.calls[0]![0] as { type?: string }).type).toBe("JWTSessionError");
  });

  it("a custom decode's own JWTSessionError is logged as it is; other throws are wrapped", async () => {
    const { JWTSessionError } = await import("@gatehousejs/core/errors");
    const own = new JWTSessionError("custom decode says no");
    for (const [thrown, message] of [
      [own, "custom decode says no"],
      [new Error("boom"), "The session token could not be decoded"],
    ] as const) {
      const logger = recordingLogger();
      const config = credentialsConfig({ logger, jwt: { decode: () => Promise.reject(thrown) } });
      const { body } = await check(`${COOKIE}=x`, config);
      expect(body).toBeNull();
      const [logged] = logger.error.mock.calls[0]! as [Error & { type?: string }];
      expect(logged.type).toBe("JWTSessionError");
      expect(logged.message).toBe(message);
      if (thrown === own) expect(logged).toBe(own);
      else expect(logged.cause).toBe(thrown);
    }
  });

  it("a custom decode answering null: no session, the cookie cleared, nothing logged", async () => {
    const logger = recordingLogger();
    // A jwt callback that would make a session out of anything is not even asked.
    const jwt = vi.fn(({ token }: { token: JWT }) => ({ ...token, name: "made up" }));
    const config = credentialsConfig({ logger, jwt: { decode: () => null }, callbacks: { jwt } });
    const { body, cookies } = await check(`${COOKIE}=x`, config);
    expect(body).toBeNull();
    expect(cookies.get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(logger.error).not.toHaveBeenCalled();
    expect(jwt).not.toHaveBeenCalled();
  });

  it("a jwt callback that throws: no session, the cookie kept, one JWTSessionError", async () => {
    const logger = recordingLogger();
    const failure = new Error("the callback broke");
    const config = credentialsConfig({
      logger,
      callbacks: {
        jwt: () => {
          throw failure;
        },
      },
    });
    const { body, cookies } = await check(`${COOKIE}=${await tokenOf({ sub: "1" })}`, config);
    expect(body).toBeNull();
    expect(cookies.size).toBe(0);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [logged] = logger.error.mock.calls[0]! as [Error & { type?: string }];
    expect(logged).toMatchObject({ type: "JWTSessionError", message: "The jwt callback threw" });
    expect(logged.cause).toBe(failure);
  });

  it("on sign-out: one SignOutError, the signOut event with a null token, the cookie cleared", async () => {
    const logger = recordingLogger();
    const signOut = vi.fn();
    const config = credentialsConfig({ logger, events: { signOut } });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    jar.cookies.set(COOKIE, "not-a-token");
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(signOut).toHaveBeenCalledWith({ token: null });
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [logged] = logger.error.mock.calls[0]! as [Error & { type?: string }];
    expect(logged).toMatchObject({
      type: "SignOutError",
      message: "The session token could not be decoded",
    });
    expect((logged.cause as { type?: string }).type).toBe("JWTSessionError");
  });

  it("sign-out without a session cookie fires no signOut event and deletes nothing", async () => {
    const signOut = vi.fn();
    const config = credentialsConfig({ events: { signOut } });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
    expect(signOut).not.toHaveBeenCalled();
    expect([...setCookies(response).keys()].filter((n) => n.startsWith(COOKIE))).toEqual([]);
  });

  it("sign-out with a valid session hands its token to the signOut event", async () => {
    const signOut = vi.fn();
    const config = credentialsConfig({ events: { signOut } });
    const jar = new Jar();
    await signInAlice(config, jar);
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
    expect(signOut).toHaveBeenCalledWith({ token: expect.objectContaining({ sub: alice.id }) });
  });
});
