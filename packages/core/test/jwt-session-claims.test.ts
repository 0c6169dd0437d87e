/**
 * The session claims of a JWT (`sid`, `auth_time`) against a custom `jwt` callback: what it drops
 * comes back, what it sets itself stands, a malformed value is not carried over; the sign-in time
 * a token without `sid` or `iat` is given; which `error` the `session` callback hears; and the
 * contract of the legacy token's re-issue that "sign out everywhere else" relies on.
 */
import { getSession, revokeUserSessions } from "@gatehousejs/core";
import { decode, encode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { resolveConfig } from "../src/lib/config.js";
import { Context } from "../src/lib/context.js";
import { parseRequest } from "../src/lib/request.js";
import { giveLegacyTokenSessionId } from "../src/lib/session/jwt.js";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  SECRET,
  send,
  signInAlice,
} from "./helpers.js";
import { agents, Browser, COOKIE, sessionsConfig, users } from "./sessions-helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

const seconds = () => Math.floor(Date.now() / 1000);

/** Moves the clock (only `Date`) by `ms`. */
function advance(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + ms });
}

const tokenIn = async (jar: Jar): Promise<JWT> =>
  (await decode({ token: jar.cookies.get(COOKIE) ?? "", secret: SECRET, salt: COOKIE })) as JWT;

const cookieOf = (claims: JWT) => encode({ token: claims, secret: SECRET, salt: COOKIE });

/** A fresh id of the shape Gatehouse gives sessions (22 base64url characters). */
const freshId = () => crypto.randomUUID().replaceAll("-", "").slice(0, 22);

/** POST /session with `data`, as `update()` on the client does. */
async function update(config: AuthConfig, jar: Jar, data: unknown) {
  const response = await send(config, jar, "/auth/session", {
    json: { csrfToken: await csrfToken(config, jar), data },
  });
  expect(response.status).toBe(200);
  return response;
}

describe("what a custom jwt callback does to sid and auth_time", () => {
  /** A callback that builds a new token from a few claims: sid and auth_time are not among them. */
  const rebuilding = {
    jwt: ({ token }: { token: JWT }) => ({ sub: token.sub, email: token.email }),
  };

  test("a callback that builds a new token loses neither: at sign-in and at every re-issue", async () => {
    const config = credentialsConfig({
      session: { strategy: "jwt", updateAge: 0 },
      callbacks: rebuilding,
    });
    const jar = new Jar();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const signedInAt = seconds();
    expect((await signInAlice(config, jar)).status).toBe(302);
    const first = await tokenIn(jar);
    expect(first).not.toHaveProperty("name");
    expect(first.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(first.auth_time).toBe(signedInAt);

    advance(5000);
    await send(config, jar, "/auth/session");
    const reissued = await tokenIn(jar);
    expect(reissued.iat).toBeGreaterThan(first.iat ?? 0);
    expect(reissued).toMatchObject({ sid: first.sid, auth_time: signedInAt });
  });

  test("so a revocation of the user landing during such a callback still ends the re-issued cookie", async () => {
    let race: (() => Promise<void>) | undefined;
    const store = MemoryRevocationStore();
    const config = sessionsConfig({
      session: { strategy: "jwt", revocation: { store } },
      callbacks: {
        // Runs after the store was asked and before the cookie is re-issued.
        jwt: async ({ token }) => {
          await race?.();
          return { sub: token.sub, email: token.email };
        },
      },
    });
    const browser = await new Browser(config, agents.chromeMac).signIn("alice");
    // A day on, the check re-issues the cookie.
    advance(86_400_000);
    race = async () => {
      race = undefined;
      await revokeUserSessions(config, users.alice.id);
      // The re-issue happens a few seconds later, after the revocation's second.
      vi.setSystemTime(Date.now() + 3000);
    };
    // This check was answered before the revocation; the cookie it re-issues is not.
    expect((await browser.session())?.user?.email).toBe(users.alice.email);
    expect(browser.cookies.has(COOKIE)).toBe(true);
    expect(await browser.session()).toBeNull();
  });

  test.each([
    ["a token with a sid", true],
    ["a token without one (as Auth.js minted)", false],
  ])(
    "what it sets itself stands: an update recording a new sign-in time, on %s",
    async (_, withSid) => {
      const config = credentialsConfig({
        callbacks: {
          jwt: ({ token, trigger, session }) =>
            trigger === "update" && (session as { reauthenticated?: boolean })?.reauthenticated
              ? { ...token, auth_time: seconds() }
              : token,
        },
      });
      const jar = new Jar();
      const sid = freshId();
      // Issued an hour ago; the one with a sid says its session began a day before that.
      advance(-3_600_000);
      const session = withSid ? { sid, auth_time: seconds() - 86_400 } : {};
      jar.cookies.set(COOKIE, await cookieOf({ sub: alice.id, email: alice.email, ...session }));
      vi.useRealTimers();

      const before = seconds();
      await update(config, jar, { reauthenticated: true });
      const after = seconds();
      const reissued = await tokenIn(jar);
      expect(reissued.auth_time).toBeGreaterThanOrEqual(before);
      expect(reissued.auth_time).toBeLessThanOrEqual(after);
      if (withSid) expect(reissued.sid).toBe(sid);
      else expect(reissued.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    },
  );

  test("a callback that gives the session a new sid keeps it", async () => {
    const rotated = freshId();
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token, trigger }) => (trigger === "update" ? { ...token, sid: rotated } : token),
      },
    });
    const jar = new Jar();
    expect((await signInAlice(config, jar)).status).toBe(302);
    const first = await tokenIn(jar);
    expect(first.sid).not.toBe(rotated);

    await update(config, jar, {});
    const reissued = await tokenIn(jar);
    expect(reissued.sid).toBe(rotated);
    expect(reissued.auth_time).toBe(first.auth_time);
  });

  test("a malformed auth_time (not one Gatehouse wrote) is not carried into a rebuilt token", async () => {
    const config = credentialsConfig({
      session: { strategy: "jwt", updateAge: 0 },
      callbacks: rebuilding,
    });
    const jar = new Jar();
    const sid = freshId();
    jar.cookies.set(COOKIE, await cookieOf({ sub: alice.id, sid, auth_time: "yesterday" }));
    const body = await (await send(config, jar, "/auth/session")).json();
    expect(body).not.toBeNull();
    const reissued = await tokenIn(jar);
    expect(reissued.sid).toBe(sid);
    expect(reissued.auth_time).not.toBe("yesterday");
  });
});

describe("a token without sid and without iat", () => {
  /** An app's own token format (no encryption, no `iat`): enough to carry the claims. */
  const plain = {
    encode: ({ token }: { token?: JWT }) =>
      Buffer.from(JSON.stringify(token ?? {})).toString("base64url"),
    decode: ({ token }: { token?: string }) =>
      token ? (JSON.parse(Buffer.from(token, "base64url").toString()) as JWT) : null,
  };

  test("is re-issued with its re-issue time as auth_time, so a later revocation of the user ends it", async () => {
    const config = sessionsConfig({
      session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } },
      jwt: plain,
    });
    const browser = new Browser(config, agents.chromeMac);
    browser.cookies.set(COOKIE, plain.encode({ token: { sub: users.alice.id, email: "a@x.io" } }));

    const before = seconds();
    expect((await browser.session())?.user?.email).toBe("a@x.io");
    const after = seconds();
    const reissued = plain.decode({ token: browser.cookies.get(COOKIE) }) as JWT;
    expect(reissued).not.toHaveProperty("iat");
    expect(reissued.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(reissued.auth_time).toBeGreaterThanOrEqual(before);
    expect(reissued.auth_time).toBeLessThanOrEqual(after);

    advance(1000);
    await revokeUserSessions(config, users.alice.id);
    expect(await browser.session()).toBeNull();
  });
});

describe("the error the session callback hears", () => {
  test.each([
    ["the refresh mark reaches it as session.error", "RefreshTokenError", "RefreshTokenError"],
    ["an error claim of the app's own stays on the token", "RefreshAccessTokenError", undefined],
    ["without an error claim the session has no error key", undefined, undefined],
  ])("%s", async (_, claim, heard) => {
    const session = vi.fn(({ session }) => session);
    const config = credentialsConfig({ callbacks: { session } });
    const cookie = await cookieOf({
      sub: alice.id,
      email: alice.email,
      ...(claim === undefined ? {} : { error: claim }),
    });
    const response = await getSession(
      new Request(`${ORIGIN}/account`, { headers: { cookie: `${COOKIE}=${cookie}` } }),
      config,
    );
    expect(response).not.toBeNull();
    const passed = session.mock.calls[0]![0].session as Record<string, unknown>;
    expect(Object.keys(passed).includes("error")).toBe(heard !== undefined);
    expect(passed.error).toBe(heard);
    expect((response as Record<string, unknown>).error).toBe(heard);
  });
});

describe("re-issuing the request's own token without sid (sign out everywhere else)", () => {
  const store = MemoryRevocationStore();

  async function contextWith(config: AuthConfig, cookie?: string) {
    const headers = cookie ? { cookie: `${COOKIE}=${cookie}` } : undefined;
    const request = new Request(`${ORIGIN}/auth/sessions/revoke`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ others: true }),
    });
    const req = await parseRequest(request, "/auth");
    return new Context(req, resolveConfig(config));
  }

  const config = sessionsConfig({ session: { strategy: "jwt", revocation: { store } } });

  test("the caller's own legacy token gets a sid, written at this response", async () => {
    const ctx = await contextWith(config, await cookieOf({ sub: users.alice.id }));
    const sid = await giveLegacyTokenSessionId(ctx, users.alice.id);
    expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const [written] = ctx.setCookies;
    expect(written?.name).toBe(COOKIE);
    const token = (await decode({ token: written?.value, secret: SECRET, salt: COOKIE })) as JWT;
    expect(token).toMatchObject({ sub: users.alice.id, sid });
  });

  test("another user's token is left alone", async () => {
    const ctx = await contextWith(config, await cookieOf({ sub: users.bob.id }));
    expect(await giveLegacyTokenSessionId(ctx, users.alice.id)).toBeNull();
    expect(ctx.setCookies).toEqual([]);
  });

  test("a token that already has a sid is left alone", async () => {
    const ctx = await contextWith(config, await cookieOf({ sub: users.alice.id, sid: freshId() }));
    expect(await giveLegacyTokenSessionId(ctx, users.alice.id)).toBeNull();
    expect(ctx.setCookies).toEqual([]);
  });

  test("without a session cookie nothing is decoded, and a decode answering null re-issues nothing", async () => {
    // A decode that would make a legacy token of the user out of anything.
    const anything = vi.fn(() => ({ sub: users.alice.id }) as JWT);
    const lenient = sessionsConfig({
      session: { strategy: "jwt", revocation: { store } },
      jwt: { decode: anything },
    });
    const bare = await contextWith(lenient);
    expect(await giveLegacyTokenSessionId(bare, users.alice.id)).toBeNull();
    expect(anything).not.toHaveBeenCalled();
    expect(bare.setCookies).toEqual([]);

    const refusing = sessionsConfig({
      session: { strategy: "jwt", revocation: { store } },
      jwt: { decode: () => null },
    });
    const ctx = await contextWith(refusing, "x");
    expect(await giveLegacyTokenSessionId(ctx, users.alice.id)).toBeNull();
    expect(ctx.setCookies).toEqual([]);
  });
});
