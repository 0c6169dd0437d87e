import { createHash } from "node:crypto";
import { Auth, raw, skipCSRFCheck } from "@gatehousejs/core";
import type { ResponseInternal } from "@gatehousejs/core/types";
import { describe, expect, test, type vi } from "vitest";
import {
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

describe("GET /csrf", () => {
  test("mints a 64-hex token whose cookie is token|sha256(token + secret), uncached", async () => {
    const jar = new Jar();
    const response = await send(credentialsConfig(), jar, "/auth/csrf");
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(jar.cookies.get("authjs.csrf-token")).toBe(`${csrfToken}|${sha256(csrfToken + SECRET)}`);
    expect(setCookies(response).get("authjs.csrf-token")!.raw).toMatch(/%7C/);
    expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store");
  });

  test("reuses a valid cookie's token and sets no new cookie", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const first = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/csrf");
    expect(((await response.json()) as { csrfToken: string }).csrfToken).toBe(first);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  test("a cookie with a forged hash is replaced", async () => {
    const jar = new Jar();
    jar.cookies.set("authjs.csrf-token", `${"a".repeat(64)}|${"b".repeat(64)}`);
    const response = await send(credentialsConfig(), jar, "/auth/csrf");
    expect(((await response.json()) as { csrfToken: string }).csrfToken).not.toBe("a".repeat(64));
  });

  test("rotating the secret keeps CSRF cookies signed with an older secret valid", async () => {
    const jar = new Jar();
    await csrfToken(credentialsConfig({ secret: "old-secret" }), jar);
    const rotated = credentialsConfig({ secret: ["new-secret", "old-secret"] });
    const token = jar.cookies.get("authjs.csrf-token")!.split("|")[0]!;
    const response = await send(rotated, jar, "/auth/callback/credentials", {
      form: { csrfToken: token, username: "alice", password: "wonderland" },
    });
    expect(response.headers.get("location")).toBe(ORIGIN);
  });

  test("a cookie hashed with the comma-joined secret list (as Auth.js does) is accepted", async () => {
    const secrets = ["s-one", "s-two"];
    const token = "c".repeat(64);
    const jar = new Jar();
    jar.cookies.set("authjs.csrf-token", `${token}|${sha256(token + secrets.join(","))}`);
    const response = await send(credentialsConfig({ secret: secrets }), jar, "/auth/csrf");
    expect(((await response.json()) as { csrfToken: string }).csrfToken).toBe(token);
  });

  test("with skipCSRFCheck it answers 404 and POSTs need no token", async () => {
    const config = credentialsConfig({ skipCSRFCheck });
    const jar = new Jar();
    const response = await send(config, jar, "/auth/csrf");
    expect(response.status).toBe(404);
    expect((config.logger as { warn: ReturnType<typeof vi.fn> }).warn).toHaveBeenCalledWith(
      "csrf-disabled",
    );
    const signIn = await send(config, jar, "/auth/callback/credentials", {
      form: { username: "alice", password: "wonderland" },
    });
    expect(signIn.headers.get("location")).toBe(ORIGIN);
  });
});

describe("GET /providers", () => {
  test("lists every provider with its sign-in and callback URLs and sets no cookie", async () => {
    const response = await send(credentialsConfig(), new Jar(), "/auth/providers");
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${ORIGIN}/auth/signin/credentials`,
        callbackUrl: `${ORIGIN}/auth/callback/credentials`,
      },
    });
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});

describe("pages", () => {
  test("GET /signin renders the form with the CSRF token and the resolved callback URL", async () => {
    const jar = new Jar();
    const response = await send(credentialsConfig(), jar, "/auth/signin?callbackUrl=%2Fafter");
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('<html lang="en">');
    const token = jar.cookies.get("authjs.csrf-token")!.split("|")[0]!;
    expect(html).toContain(`value="${token}"`);
    expect(html).toContain(`value="${ORIGIN}/after"`);
    expect(html).toContain(`action="${ORIGIN}/auth/callback/credentials"`);
    expect(html).not.toMatch(/src="https?:/);
  });

  test("the sign-in page shows the error message for ?error=CredentialsSignin", async () => {
    const html = await (
      await send(credentialsConfig(), new Jar(), "/auth/signin?error=CredentialsSignin")
    ).text();
    expect(html).toMatch(/role="alert"/);
  });

  test("the theme reaches the page", async () => {
    const config = credentialsConfig({
      theme: { colorScheme: "dark", brandColor: "#ff0066", buttonText: "#ffffff" },
    });
    const html = await (await send(config, new Jar(), "/auth/signin")).text();
    expect(html).toContain("#ff0066");
    expect(html).toMatch(/theme-dark/);
  });

  test("custom pages replace the built-in ones with redirects", async () => {
    const config = credentialsConfig({
      pages: { signIn: "/login", signOut: "/logout", error: "/oops", verifyRequest: "/check-mail" },
    });
    const jar = new Jar();
    const signIn = await send(config, jar, "/auth/signin?callbackUrl=%2Fx&error=SessionRequired");
    expect(signIn.headers.get("location")).toBe(
      `${ORIGIN}/login?callbackUrl=${encodeURIComponent(`${ORIGIN}/x`)}&error=SessionRequired`,
    );
    expect((await send(config, jar, "/auth/signout")).headers.get("location")).toBe(
      `${ORIGIN}/logout`,
    );
    expect(
      (await send(config, jar, "/auth/error?error=AccessDenied")).headers.get("location"),
    ).toBe(`${ORIGIN}/oops?error=AccessDenied`);
    expect((await send(config, jar, "/auth/error")).headers.get("location")).toBe(`${ORIGIN}/oops`);
    expect(
      (await send(config, jar, "/auth/verify-request?provider=email&type=email")).headers.get(
        "location",
      ),
    ).toBe(`${ORIGIN}/check-mail?provider=email&type=email`);
  });

  test.each([
    ["Configuration", 500],
    ["AccessDenied", 403],
    ["Verification", 403],
    ["InvalidCallbackUrl", 400],
    ["Whatever", 200],
  ])("the error page for %s answers %i", async (error, status) => {
    const response = await send(credentialsConfig(), new Jar(), `/auth/error?error=${error}`);
    expect(response.status).toBe(status);
    expect(await response.text()).not.toContain("Whatever");
  });

  test("GET /verify-request renders the check-your-email page", async () => {
    const response = await send(credentialsConfig(), new Jar(), "/auth/verify-request");
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/Check your email/);
  });

  test("POST /signin without a provider, or for credentials, goes back to the sign-in page", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    for (const path of ["/auth/signin", "/auth/signin/credentials"]) {
      const response = await send(config, jar, path, { form: { csrfToken: csrf } });
      expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin`);
    }
  });
});

describe("basePath, raw and the action list", () => {
  test("a custom basePath is honoured, and the default path is then unknown", async () => {
    const config = credentialsConfig({ basePath: "/api/auth" });
    expect((await send(config, new Jar(), "/api/auth/session")).status).toBe(200);
    expect((await send(config, new Jar(), "/auth/session")).status).toBe(400);
  });

  test("the provider id 'undefined' means no provider", async () => {
    const response = await send(credentialsConfig(), new Jar(), "/auth/signin/undefined");
    expect(response.status).toBe(200);
  });

  test("raw returns the internal response object with cookies unserialised", async () => {
    const config = credentialsConfig({ raw });
    const jar = new Jar();
    const real = credentialsConfig();
    const csrf = await csrfToken(real, jar);
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: csrf, username: "alice", password: "wonderland" }),
    });
    const result = (await Auth(request, config)) as unknown as ResponseInternal;
    expect(result).not.toBeInstanceOf(Response);
    expect(result.redirect).toBe(ORIGIN);
    expect(result.cookies?.map((c) => c.name)).toContain("authjs.session-token");
  });

  test("raw with a broken configuration returns the internal 500, not a Response", async () => {
    const config = credentialsConfig({ raw, secret: undefined });
    const result = (await Auth(
      new Request(`${ORIGIN}/auth/session`),
      config,
    )) as unknown as ResponseInternal;
    expect(result).not.toBeInstanceOf(Response);
    expect(result.status).toBe(500);
  });

  test("raw rethrows client AuthErrors such as CredentialsSignin to the framework", async () => {
    const config = credentialsConfig({ raw, skipCSRFCheck });
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=alice&password=bad",
    });
    await expect(Auth(request, config)).rejects.toMatchObject({
      type: "CredentialsSignin",
      code: "credentials",
    });
  });

  test("a session minted by sign-in is read back through a fresh jar (cookie names line up)", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const only = new Jar();
    only.cookies.set("authjs.session-token", jar.cookies.get("authjs.session-token")!);
    expect((await (await send(config, only, "/auth/session")).json()).user.name).toBe("Alice");
  });
});
