/**
 * Scanner-safe magic links through `Auth()` with the memory adapter: a `GET` of the link answers a
 * confirmation page and consumes nothing; only its CSRF-checked `POST` signs in; `confirm: false`
 * keeps the one-click link; and the sign-in request answers alike for known and unknown addresses.
 */
import { createHash } from "node:crypto";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send, setCookies } from "./helpers.js";
import { followLink, formOf } from "./support/email-link.js";

const SESSION_COOKIE = "authjs.session-token";

function setup(options: { confirm?: boolean; code?: boolean } = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const links: URL[] = [];
  const signIn = vi.fn();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    events: { signIn },
    providers: [
      Email({
        ...options,
        sendVerificationRequest: ({ url }) => {
          links.push(new URL(url));
        },
      }),
    ],
  };
  return { config, adapter, logger, links, signIn };
}

/** Asks for a link in `jar`; returns the sign-in answer and the mailed link. */
async function requestLink(
  world: ReturnType<typeof setup>,
  jar: Jar,
  email: string,
  callbackUrl?: string,
) {
  const form: Record<string, string> = { csrfToken: await csrfToken(world.config, jar), email };
  if (callbackUrl) form.callbackUrl = callbackUrl;
  const answer = await send(world.config, jar, "/auth/signin/email", { form });
  return { answer, link: world.links.at(-1)! };
}

const storedToken = (link: URL) => ({
  identifier: link.searchParams.get("email")!,
  token: createHash("sha256")
    .update(link.searchParams.get("token")! + SECRET)
    .digest("hex"),
});

async function sessionEmail(config: AuthConfig, jar: Jar): Promise<string | undefined> {
  const session = (await (await send(config, jar, "/auth/session")).json()) as {
    user?: { email?: string };
  } | null;
  return session?.user?.email;
}

const open = (config: AuthConfig, jar: Jar, link: URL, headers?: Record<string, string>) =>
  send(config, jar, link.pathname + link.search, { headers });

describe("a GET of the link (a mail scanner, or the user before pressing the button)", () => {
  test("answers the confirmation page, consumes nothing and sets no session cookie", async () => {
    const world = setup();
    const { link } = await requestLink(world, new Jar(), "alice@example.com");
    const scanner = new Jar();
    const page = await open(world.config, scanner, link);

    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("private, no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(setCookies(page).has(SESSION_COOKIE)).toBe(false);
    const html = await page.text();
    expect(html).toContain("Sign in as alice@example.com</button>");
    const form = formOf(html);
    expect(form.action).toBe(`${ORIGIN}/auth/callback/email`);
    expect(form.fields).toMatchObject({
      token: link.searchParams.get("token"),
      email: "alice@example.com",
      callbackUrl: `${ORIGIN}`,
    });
    expect(world.adapter.rows.verificationToken(storedToken(link))).not.toBeNull();
    expect(world.adapter.rows.count().users).toBe(0);
    expect(world.signIn).not.toHaveBeenCalled();
    expect(await sessionEmail(world.config, scanner)).toBeUndefined();

    // Opened ten more times (scanners retry): the user's own visit still signs in.
    for (let i = 0; i < 10; i++) await open(world.config, new Jar(), link);
    const user = new Jar();
    const signedIn = await followLink(world.config, user, link);
    expect(signedIn.status).toBe(302);
    expect(await sessionEmail(world.config, user)).toBe("alice@example.com");
  });

  test("the page escapes the address and the token it echoes", async () => {
    const world = setup();
    const { link } = await requestLink(world, new Jar(), "alice@example.com");
    const hostile = new URL(link);
    hostile.searchParams.set("email", `"><script>alert(1)</script>`);
    hostile.searchParams.set("token", `"><img src=x onerror=alert(1)>`);
    const html = await (await open(world.config, new Jar(), hostile)).text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  test("a link without token or address is Verification, never a page", async () => {
    const world = setup();
    const { link } = await requestLink(world, new Jar(), "alice@example.com");
    const broken = new URL(link);
    broken.searchParams.delete("token");
    const answer = await open(world.config, new Jar(), broken);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });

  test("a hostile callbackUrl in the link is refused before any page is shown", async () => {
    const world = setup();
    const { link } = await requestLink(world, new Jar(), "alice@example.com");
    const hostile = new URL(link);
    hostile.searchParams.set("callbackUrl", "https://evil.example/");
    const answer = await open(world.config, new Jar(), hostile);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).not.toContain("evil.example");
    expect(world.adapter.rows.verificationToken(storedToken(link))).not.toBeNull();
  });
});

describe("the confirmation POST", () => {
  test("signs in, lands on the callbackUrl of the sign-in request, and works once", async () => {
    const world = setup();
    const jar = new Jar();
    const { link } = await requestLink(world, jar, "alice@example.com", "/dashboard");
    const answer = await followLink(world.config, jar, link);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/dashboard`);
    expect(setCookies(answer).has(SESSION_COOKIE)).toBe(true);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
    expect(world.signIn).toHaveBeenCalledTimes(1);
    expect(world.adapter.rows.verificationToken(storedToken(link))).toBeNull();

    const again = await followLink(world.config, new Jar(), link);
    expect(again.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });

  test("without the CSRF token it is MissingCSRF: nothing consumed, no session", async () => {
    const world = setup();
    const { link } = await requestLink(world, new Jar(), "alice@example.com");
    const attacker = new Jar();
    const page = await open(world.config, attacker, link);
    const { fields } = formOf(await page.text());
    const { csrfToken: _dropped, ...withoutCsrf } = fields;

    for (const form of [withoutCsrf, { ...withoutCsrf, csrfToken: "0".repeat(64) }]) {
      const answer = await send(world.config, attacker, "/auth/callback/email", { form });
      expect(answer.status).toBe(302);
      expect(answer.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
      expect(setCookies(answer).has(SESSION_COOKIE)).toBe(false);
    }
    // A CSRF cookie of another browser does not vouch for this one's form either.
    const other = new Jar();
    await csrfToken(world.config, other);
    const crossed = await send(world.config, other, "/auth/callback/email", { form: fields });
    expect(crossed.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);

    expect(world.adapter.rows.verificationToken(storedToken(link))).not.toBeNull();
    expect(await sessionEmail(world.config, attacker)).toBeUndefined();
    expect(world.adapter.rows.count().users).toBe(0);
    const user = new Jar();
    await followLink(world.config, user, link);
    expect(await sessionEmail(world.config, user)).toBe("alice@example.com");
  });

  test("with X-Auth-Return-Redirect it answers 200 { url }", async () => {
    const world = setup();
    const jar = new Jar();
    const { link } = await requestLink(world, jar, "alice@example.com", "/home");
    const { fields } = formOf(await (await open(world.config, jar, link)).text());
    const answer = await send(world.config, jar, "/auth/callback/email", {
      form: fields,
      headers: { "X-Auth-Return-Redirect": "1" },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ url: `${ORIGIN}/home` });
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test("a JSON body with the CSRF token signs in too", async () => {
    const world = setup();
    const jar = new Jar();
    const { link } = await requestLink(world, jar, "alice@example.com");
    const answer = await send(world.config, jar, "/auth/callback/email", {
      json: {
        token: link.searchParams.get("token"),
        email: "alice@example.com",
        csrfToken: await csrfToken(world.config, jar),
      },
    });
    expect(answer.status).toBe(302);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });
});

describe("pages.emailConfirm", () => {
  test("a custom confirmation page receives the link's values; its POST signs in", async () => {
    const world = setup();
    world.config.pages = { emailConfirm: "/confirm-sign-in" };
    const jar = new Jar();
    const { link } = await requestLink(world, jar, "alice@example.com", "/after");
    const opened = await open(world.config, jar, link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const target = new URL(opened.headers.get("location")!);
    expect(target.pathname).toBe("/confirm-sign-in");
    expect(Object.fromEntries(target.searchParams)).toEqual({
      provider: "email",
      token: link.searchParams.get("token"),
      email: "alice@example.com",
      callbackUrl: `${ORIGIN}/after`,
    });
    expect(world.adapter.rows.verificationToken(storedToken(link))).not.toBeNull();

    // What the custom page's button posts.
    const { provider: _, ...fields } = Object.fromEntries(target.searchParams);
    const answer = await send(world.config, jar, "/auth/callback/email", {
      form: { ...fields, csrfToken: await csrfToken(world.config, jar) },
    });
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/after`);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });
});

describe("confirm: false", () => {
  test("the GET of the link signs in with one click, as in Auth.js", async () => {
    const world = setup({ confirm: false });
    const jar = new Jar();
    const { link } = await requestLink(world, jar, "alice@example.com");
    const answer = await open(world.config, jar, link);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(ORIGIN);
    expect(setCookies(answer).has(SESSION_COOKIE)).toBe(true);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
    expect(world.adapter.rows.verificationToken(storedToken(link))).toBeNull();
  });
});

describe("account enumeration", () => {
  /** What a browser can see of an answer: status, redirect, and each cookie's name and attributes. */
  const visible = (answer: Response) => ({
    status: answer.status,
    location: answer.headers.get("location"),
    cookies: answer.headers
      .getSetCookie()
      .map((raw) => raw.replace(/=[^;]*/, "=…").replace(/Expires=[^;]*/, "Expires=…"))
      .sort(),
  });

  test.each([
    ["links", {}],
    ["links and codes", { code: true }],
  ])(
    "the sign-in request answers alike for known and unknown addresses (%s)",
    async (_, options) => {
      const world = setup(options);
      await world.adapter.createUser({
        id: "u1",
        email: "known@example.com",
        emailVerified: new Date(),
      });
      const known = new Jar();
      const unknown = new Jar();
      await csrfToken(world.config, known);
      await csrfToken(world.config, unknown);
      const a = await requestLink(world, known, "known@example.com");
      const b = await requestLink(world, unknown, "unknown@example.com");
      expect(visible(a.answer)).toEqual(visible(b.answer));
      expect(visible(a.answer).location).toBe(
        `${ORIGIN}/auth/verify-request?provider=email&type=email`,
      );
      expect(await a.answer.text()).toBe(await b.answer.text());
      expect(world.links).toHaveLength(2);
    },
  );
});
