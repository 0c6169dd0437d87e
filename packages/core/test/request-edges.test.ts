/**
 * The edges of reading a request and writing a page: exact media types, the cookie grammar's
 * whitespace, the security headers of the built-in pages, and one log line per client mistake
 * under its own type.
 */
import { Auth } from "@gatehousejs/core";
import { describe, expect, test } from "vitest";
import {
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  send,
  signInAlice,
} from "./helpers.js";

describe("the body parser matches the exact media type", () => {
  test.each([
    "application/jsonx",
    "text/plain; note=application/json",
    "application/x-www-form-urlencoded-evil",
    "text/html; x=application/x-www-form-urlencoded",
  ])("%s is not read as a body", async (type) => {
    const config = credentialsConfig();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const body =
      type.includes("json") && !type.includes("urlencoded")
        ? JSON.stringify({ csrfToken: token, username: "alice", password: "wonderland" })
        : new URLSearchParams({
            csrfToken: token,
            username: "alice",
            password: "wonderland",
          }).toString();
    const response = jar.take(
      await Auth(
        new Request(`${ORIGIN}/auth/callback/credentials`, {
          method: "POST",
          headers: { "content-type": type, cookie: jar.header() },
          body,
        }),
        config,
      ),
    );
    // Without a body there is no CSRF token: nobody is signed in.
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
  });

  test.each([
    "application/json; charset=utf-8",
    "Application/JSON",
    " application/json ;charset=UTF-8",
  ])("%s is JSON", async (type) => {
    const config = credentialsConfig();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const response = jar.take(
      await Auth(
        new Request(`${ORIGIN}/auth/callback/credentials`, {
          method: "POST",
          headers: { "content-type": type, cookie: jar.header() },
          body: JSON.stringify({ csrfToken: token, username: "alice", password: "wonderland" }),
        }),
        config,
      ),
    );
    expect(response.headers.get("location")).toBe(ORIGIN);
  });
});

describe("cookie names are trimmed of spaces and tabs only", () => {
  test("spaces and tabs around a name are the cookie grammar's whitespace", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const [name, value] = [...jar.cookies].find(([n]) => n.endsWith("session-token"))!;
    const header = ` \t${name}\t =${encodeURIComponent(value)}`;
    const session = await Auth(
      new Request(`${ORIGIN}/auth/session`, { headers: { cookie: header } }),
      config,
    );
    expect(await session.json()).toMatchObject({ user: { name: "Alice" } });
  });

  test.each([
    ["a vertical tab", "\v"],
    ["a form feed", "\f"],
    ["a no-break space", "\u00a0"],
  ])("%s is part of the name, not trimmed", async (_label, char) => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const [name, value] = [...jar.cookies].find(([n]) => n.endsWith("session-token"))!;
    const headers = new Headers({ cookie: `${char}${name}=${encodeURIComponent(value)}` });
    expect(headers.get("cookie")!.startsWith(char)).toBe(true);
    const session = await Auth(new Request(`${ORIGIN}/auth/session`, { headers }), config);
    expect(await session.json()).toBeNull();
  });
});

describe("the built-in pages' security headers", () => {
  test.each([
    "/auth/signin",
    "/auth/signout",
    "/auth/error?error=Verification",
    "/auth/verify-request",
  ])("%s is not cached, sniffed or framed, and its inline CSS runs by nonce", async (path) => {
    const response = await send(credentialsConfig(), new Jar(), path);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    const nonce = /style-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    const html = await response.text();
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).not.toMatch(/<(style|script)>/);
  });

  test("each page gets a fresh nonce", async () => {
    const config = credentialsConfig();
    const a = await send(config, new Jar(), "/auth/signin");
    const b = await send(config, new Jar(), "/auth/signin");
    expect(a.headers.get("content-security-policy")).not.toBe(
      b.headers.get("content-security-policy"),
    );
  });
});

describe("each failure is logged once under its own type, client mistakes below error", () => {
  test.each([
    ["405", "MethodNotAllowed", () => new Request(`${ORIGIN}/auth/session`, { method: "PUT" })],
    [
      "413",
      "PayloadTooLarge",
      () =>
        new Request(`${ORIGIN}/auth/signout`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "x".repeat(64 * 1024 + 1),
        }),
    ],
    [
      "400 malformed JSON",
      "BadRequest",
      () =>
        new Request(`${ORIGIN}/auth/session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{",
        }),
    ],
    ["400 unknown action", "UnknownAction", () => new Request(`${ORIGIN}/auth/nope`)],
    ["400 unknown provider", "InvalidProvider", () => new Request(`${ORIGIN}/auth/callback/x`)],
  ])("%s → %s", async (_status, type, request) => {
    const logger = recordingLogger();
    await Auth(request(), credentialsConfig({ logger }));
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [code, detail] = logger.warn.mock.calls[0]!;
    expect(code).toBe("client-error");
    expect(detail?.name).toBe(type);
  });

  test("a wrong password is a client mistake; a throwing adapter is a server fault", async () => {
    const logger = recordingLogger();
    const config = credentialsConfig({ logger });
    await signInAlice(config, new Jar(), { password: "nope" });
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn.mock.calls.map(([, e]) => (e as { type?: string }).type)).toEqual([
      "CredentialsSignin",
    ]);
  });
});
