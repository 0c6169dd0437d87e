import { Auth } from "@gatehousejs/core";
import { CredentialsSignin } from "@gatehousejs/core/errors";
import { decode } from "@gatehousejs/core/jwt";
import Credentials from "@gatehousejs/core/providers/credentials";
import { describe, expect, test, vi } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

describe("credentials sign-in", () => {
  test("a good password signs in, sets the session cookie and redirects to the callback URL", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const response = await signInAlice(config, jar, { callbackUrl: "/dashboard" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    const token = await decode({
      token: jar.cookies.get("authjs.session-token"),
      secret: SECRET,
      salt: "authjs.session-token",
    });
    expect(token).toMatchObject({
      sub: alice.id,
      name: alice.name,
      email: alice.email,
      picture: alice.image,
    });
    expect(jar.cookies.get("authjs.callback-url")).toBe(`${ORIGIN}/dashboard`);
  });

  test("authorize receives only the declared fields, and the request", async () => {
    const authorize = vi.fn(() => ({ id: "7" }));
    const config = credentialsConfig({
      providers: [Credentials({ credentials: { pin: { label: "PIN" } }, authorize })],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf, callbackUrl: "/x", pin: "1234", extra: "nope" },
    });
    expect(authorize).toHaveBeenCalledTimes(1);
    const [credentials, request] = authorize.mock.calls[0] as unknown as [
      Record<string, unknown>,
      Request,
    ];
    expect(credentials).toEqual({ pin: "1234" });
    expect(request).toBeInstanceOf(Request);
    expect(new URL(request.url).pathname).toBe("/auth/callback/credentials");
    expect(await request.text()).toContain("pin=1234");
  });

  test("the request authorize receives carries the client's abort signal", async () => {
    const client = new AbortController();
    let seen: boolean | undefined;
    const config = credentialsConfig({
      providers: [
        Credentials({
          credentials: { pin: { label: "PIN" } },
          authorize: (_credentials, request) => {
            // The client goes away while authorize runs (a slow database lookup, say).
            client.abort();
            seen = request.signal.aborted;
            return null;
          },
        }),
      ],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await Auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: jar.header(),
        },
        body: new URLSearchParams({ csrfToken: csrf, pin: "1234" }),
        signal: client.signal,
      }),
      config,
    );
    expect(seen).toBe(true);
  });

  test("a wrong password redirects to the sign-in page with CredentialsSignin and code credentials", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf, username: "alice", password: "nope" },
    });
    expect(response.headers.get("location")).toBe(
      `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`,
    );
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
  });

  test("a thrown CredentialsSignin subclass carries its own code, also to a custom sign-in page", async () => {
    class Locked extends CredentialsSignin {
      override code = "locked";
    }
    const config = credentialsConfig({
      pages: { signIn: "/login" },
      providers: [
        Credentials({
          authorize: () => {
            throw new Locked();
          },
        }),
      ],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf },
    });
    expect(response.headers.get("location")).toBe(
      `${ORIGIN}/login?error=CredentialsSignin&code=locked`,
    );
  });

  test("the jwt callback gets trigger signIn with the user and a credentials account; signIn event fires", async () => {
    const jwt = vi.fn(({ token }) => token);
    const signInEvent = vi.fn();
    const signInCallback = vi.fn(() => true);
    const config = credentialsConfig({
      callbacks: { jwt, signIn: signInCallback },
      events: { signIn: signInEvent },
    });
    await signInAlice(config, new Jar());
    const account = { providerAccountId: alice.id, type: "credentials", provider: "credentials" };
    expect(jwt).toHaveBeenCalledWith(
      expect.objectContaining({
        trigger: "signIn",
        isNewUser: false,
        user: expect.objectContaining(alice),
        account,
      }),
    );
    expect(signInCallback).toHaveBeenCalledWith({
      user: expect.objectContaining(alice),
      account,
      credentials: { username: "alice", password: "wonderland" },
    });
    expect(signInEvent).toHaveBeenCalledWith({ user: expect.objectContaining(alice), account });
  });

  test("signIn callback false → AccessDenied on the error page; a string → that redirect", async () => {
    const denied = credentialsConfig({ callbacks: { signIn: () => false } });
    const response = await signInAlice(denied, new Jar());
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    const page = await Auth(new Request(response.headers.get("location")!), denied);
    expect(page.status).toBe(403);

    const redirected = credentialsConfig({ callbacks: { signIn: () => "/not-yet" } });
    const jar = new Jar();
    const r2 = await signInAlice(redirected, jar);
    expect(r2.headers.get("location")).toBe(`${ORIGIN}/not-yet`);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
  });

  test("a signIn callback that throws is AccessDenied and is logged once", async () => {
    const config = credentialsConfig({
      callbacks: {
        signIn: () => {
          throw new Error("banned");
        },
      },
    });
    const response = await signInAlice(config, new Jar());
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    const logger = config.logger as { error: ReturnType<typeof vi.fn> };
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]![0]).toMatchObject({
      type: "AccessDenied",
      message: "banned",
    });
  });

  test("a user without an id gets a random one as the subject", async () => {
    const config = credentialsConfig({
      providers: [Credentials({ authorize: () => ({ name: "Anon" }) })],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/callback/credentials", { form: { csrfToken: csrf } });
    const token = await decode({
      token: jar.cookies.get("authjs.session-token"),
      secret: SECRET,
      salt: "authjs.session-token",
    });
    expect(token?.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("X-Auth-Return-Redirect turns the redirect into 200 {url}, keeping the cookies", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      headers: { "X-Auth-Return-Redirect": "1" },
      form: {
        csrfToken: csrf,
        username: "alice",
        password: "wonderland",
        callbackUrl: `${ORIGIN}/home`,
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: `${ORIGIN}/home` });
    expect(setCookies(response).has("authjs.session-token")).toBe(true);
  });
});

describe("sign-out", () => {
  test("POST /signout with the CSRF token clears the session, fires signOut with the token, and redirects", async () => {
    const signOut = vi.fn();
    const config = credentialsConfig({ events: { signOut } });
    const jar = new Jar();
    await signInAlice(config, jar);
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", {
      form: { csrfToken: csrf, callbackUrl: "/bye" },
    });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/bye`);
    expect(setCookies(response).get("authjs.session-token")?.raw).toMatch(/Max-Age=0/);
    expect(signOut).toHaveBeenCalledWith({ token: expect.objectContaining({ sub: alice.id }) });
    expect(await (await send(config, jar, "/auth/session")).json()).toBeNull();
  });

  test("POST /signout without a session just redirects", async () => {
    const signOut = vi.fn();
    const config = credentialsConfig({ events: { signOut } });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(signOut).not.toHaveBeenCalled();
  });

  test("GET /signout shows a confirmation form carrying the CSRF token", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const response = await send(config, jar, "/auth/signout");
    const html = await response.text();
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csrf = jar.cookies.get("authjs.csrf-token")!.split("|")[0]!;
    expect(html).toContain(`value="${csrf}"`);
    expect(html).toContain(`action="${ORIGIN}/auth/signout"`);
  });
});
