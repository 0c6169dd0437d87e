/**
 * Switching from next-auth v5 signs nobody out: a session cookie minted by next-auth itself is
 * read by Gatehouse's `auth()` and proxy, and a Gatehouse session cookie is read by next-auth.
 *
 * next-auth's entry imports `next/server` without an extension, which only Next's bundler
 * resolves; so its route handlers are run here as they run inside Next: `Auth()` of
 * `@auth/core` (the version next-auth 5.0.0-beta.32 installs) with next-auth's `basePath`
 * `/api/auth`. `encode` and `decode` are `next-auth/jwt`'s own.
 */

import { Auth as nextAuthHandler } from "@auth/core";
import Gatehouse from "@gatehousejs/nextjs";
import { NextRequest } from "next/server.js";
import { decode, encode } from "next-auth/jwt";
import NextAuthCredentials from "next-auth/providers/credentials";
import { describe, expect, it, vi } from "vitest";
import { serve } from "./next-mock.js";
import {
  alice,
  cookieValue,
  credentialsConfig,
  ORIGIN,
  SECRET,
  SESSION_COOKIE,
  signedInCookie,
} from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);

/** next-auth v5 configured as the app had it before the switch: same secret, same provider. */
const nextAuthConfig = {
  basePath: "/api/auth",
  secret: SECRET,
  trustHost: true,
  providers: [
    NextAuthCredentials({
      credentials: { username: {}, password: {} },
      authorize: (credentials) =>
        credentials.username === "alice" && credentials.password === "wonderland"
          ? { ...alice }
          : null,
    }),
  ],
};

/** Signs alice in through next-auth's route handlers; returns its session cookie's value. */
async function nextAuthCookie(): Promise<string> {
  const csrf = await nextAuthHandler(new Request(`${ORIGIN}/api/auth/csrf`), nextAuthConfig);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const response = await nextAuthHandler(
    new Request(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
    }),
    nextAuthConfig,
  );
  const value = cookieValue(response.headers.getSetCookie(), SESSION_COOKIE);
  if (!value) throw new Error(`next-auth answered ${response.status} without a session cookie`);
  return value;
}

/** The session next-auth's `GET /api/auth/session` answers for a session cookie. */
async function nextAuthSession(cookie: string): Promise<unknown> {
  const response = await nextAuthHandler(
    new Request(`${ORIGIN}/api/auth/session`, {
      headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
    }),
    nextAuthConfig,
  );
  return response.json();
}

describe("next-auth v5 compatibility", () => {
  it("Gatehouse's auth() reads a session cookie minted by next-auth's handlers", async () => {
    const cookie = await nextAuthCookie();
    const { auth } = Gatehouse(credentialsConfig());
    serve({ cookie: `${SESSION_COOKIE}=${cookie}` });
    const session = await auth();
    expect(session?.user).toMatchObject({ name: alice.name, email: alice.email });
  });

  it("Gatehouse's proxy lets a next-auth session through to a protected page", async () => {
    const cookie = await nextAuthCookie();
    const { auth } = Gatehouse(credentialsConfig({ protect: ["/dashboard"] }));
    const response = await auth(
      new NextRequest(`${ORIGIN}/dashboard`, {
        headers: { host: new URL(ORIGIN).host, cookie: `${SESSION_COOKIE}=${cookie}` },
      }),
    );
    expect(response.headers.get("x-middleware-next")).toBe("1");
  });

  it("Gatehouse reads a token sealed by next-auth's encode with the cookie's salt", async () => {
    const token = await encode({
      secret: SECRET,
      salt: SESSION_COOKIE,
      token: { name: "Alice", email: alice.email, sub: alice.id },
    });
    const { auth } = Gatehouse(credentialsConfig());
    serve({ cookie: `${SESSION_COOKIE}=${token}` });
    expect((await auth())?.user?.email).toBe(alice.email);
  });

  it("next-auth's session route reads a session cookie minted by Gatehouse", async () => {
    const cookie = await signedInCookie(credentialsConfig());
    const session = await nextAuthSession(cookie);
    expect(session).toMatchObject({ user: { name: alice.name, email: alice.email } });
  });

  it("next-auth's decode opens a Gatehouse session token", async () => {
    const cookie = await signedInCookie(credentialsConfig());
    const token = await decode({ secret: SECRET, salt: SESSION_COOKIE, token: cookie });
    expect(token).toMatchObject({ email: alice.email, sub: alice.id });
  });

  it("a token sealed with another secret is refused by both", async () => {
    const token = await encode({
      secret: "another-secret-entirely-0123456789-abcdef",
      salt: SESSION_COOKIE,
      token: { email: alice.email },
    });
    const { auth } = Gatehouse(credentialsConfig());
    serve({ cookie: `${SESSION_COOKIE}=${token}` });
    await expect(auth()).resolves.toBeNull();
    await expect(decode({ secret: SECRET, salt: SESSION_COOKIE, token })).rejects.toThrow();
  });
});
