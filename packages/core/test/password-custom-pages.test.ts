/**
 * The app's own pages of password accounts (`pages.signUp`, `pages.forgotPassword`,
 * `pages.resetPassword`, docs/passwords.md "Your own pages"), through a real `Auth()` handler: a
 * GET of the built-in page's route redirects to the app's page with what it needs in the query,
 * the reset redirect with `Referrer-Policy: no-referrer` and the token nowhere but in its target;
 * POSTs stay on the routes, so a reset completes from the app's page through the client; without
 * the options the built-in pages answer as before.
 */
import { configureClient, readPasswordResetLink, resetPassword } from "@gatehousejs/core/client";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { PASSWORD, passwordWorld, type WorldOptions } from "./password-world.js";

const OWNER = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";

/** The app's pages: two paths on the site, and one absolute URL (another origin). */
const PAGES = {
  signUp: "/join",
  forgotPassword: "/account/forgot",
  resetPassword: "https://accounts.example.com/reset",
};

function world(options: WorldOptions = {}) {
  return passwordWorld({
    ...options,
    config: { pages: PAGES, rateLimit: { email: { perAddress: false } }, ...options.config },
  });
}

/** The redirect of `response`: its target, and that target's query as an object. */
function redirectOf(response: Response): { target: URL; query: Record<string, string> } {
  expect(response.status).toBe(302);
  const location = response.headers.get("location");
  if (!location) throw new Error("The answer is no redirect");
  const target = new URL(location);
  return { target, query: Object.fromEntries(target.searchParams) };
}

/** Asks for a reset of OWNER from a JSON client and returns the mailed link. */
async function mailedLink(w: ReturnType<typeof passwordWorld>, callbackUrl?: string) {
  const jar = new Jar();
  const asked = await send(w.config, jar, `/auth/forgot-password/${w.provider.id}`, {
    json: {
      csrfToken: await csrfToken(w.config, jar),
      email: OWNER,
      ...(callbackUrl ? { callbackUrl } : {}),
    },
  });
  expect(asked.status).toBe(200);
  return new URL(w.lastMail(OWNER, "resetPassword").url);
}

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

describe("pages.signUp and pages.forgotPassword", () => {
  test("GET /signup redirects to the app's page with provider and callbackUrl", async () => {
    const w = world();
    const answer = await send(w.config, new Jar(), "/auth/signup/password?callbackUrl=/welcome");
    const { target, query } = redirectOf(answer);
    expect(`${target.origin}${target.pathname}`).toBe(`${ORIGIN}/join`);
    expect(query).toEqual({ provider: "password", callbackUrl: `${ORIGIN}/welcome` });
    expect(await answer.text()).toBe("");
  });

  test("GET /forgot-password redirects with provider, callbackUrl and a prefilled address", async () => {
    const w = world();
    const plain = redirectOf(await send(w.config, new Jar(), "/auth/forgot-password/password"));
    expect(`${plain.target.origin}${plain.target.pathname}`).toBe(`${ORIGIN}/account/forgot`);
    expect(plain.query).toEqual({ provider: "password", callbackUrl: ORIGIN });

    const path = `/auth/forgot-password/password?email=${encodeURIComponent(OWNER)}&callbackUrl=/settings`;
    const { query } = redirectOf(await send(w.config, new Jar(), path));
    expect(query).toEqual({
      provider: "password",
      email: OWNER,
      callbackUrl: `${ORIGIN}/settings`,
    });
  });

  test("the built-in sign-in page's links and the password-changed email lead to the app's pages", async () => {
    const w = world();
    const signIn = await send(w.config, new Jar(), "/auth/signin");
    const html = await signIn.text();
    const links = [...html.matchAll(/<a href="([^"]*)">/g)].map((m) => m[1]!);
    const signUp = links.find((l) => l.includes("/signup/"));
    const forgot = links.find((l) => l.includes("/forgot-password/"));
    expect(signUp).toBe(`${ORIGIN}/auth/signup/password`);
    expect(forgot).toBe(`${ORIGIN}/auth/forgot-password/password`);
    expect(
      redirectOf(await send(w.config, new Jar(), new URL(signUp!).pathname)).target.pathname,
    ).toBe("/join");
    expect(
      redirectOf(await send(w.config, new Jar(), new URL(forgot!).pathname)).target.pathname,
    ).toBe("/account/forgot");
  });

  test("POSTs stay on the routes: a sign-up and a reset request are answered there", async () => {
    const w = world();
    const jar = new Jar();
    const signedUp = await w.signUpJson(jar, { email: "new@example.com", password: PASSWORD });
    expect(signedUp.status).toBe(200);
    expect(await signedUp.json()).toMatchObject({ status: "verificationSent" });
    expect(w.lastMail("new@example.com").kind).toBe("verifyEmail");

    await w.verifiedUser(OWNER);
    const asked = await w.requestReset(new Jar(), OWNER, true);
    expect(asked.status).toBe(200);
    expect(await asked.json()).toMatchObject({ status: "resetSent" });
  });

  test("a provider that is not a password provider is refused, not sent to the app's page", async () => {
    const w = world({ emailSignIn: true });
    for (const route of ["signup", "forgot-password", "reset-password"]) {
      const answer = await send(w.config, new Jar(), `/auth/${route}/email?token=t&email=a%40b.c`);
      // Refused before the route's action (its `providerTypes`), as without the options.
      expect(answer.status).toBe(400);
      expect(answer.headers.get("location")).toBeNull();
      expect(await answer.json()).toMatchObject({ error: "InvalidProvider" });
    }
  });
});

describe("pages.resetPassword", () => {
  test("the mailed link redirects with provider, token, email and callbackUrl, and spends nothing", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    const link = await mailedLink(w, "/account");
    // The mailed link stays on the auth route (links mailed before a change of pages still work).
    expect(link.pathname).toBe("/auth/reset-password/password");

    const opened = await w.open(new Jar(), link);
    const { target, query } = redirectOf(opened);
    expect(`${target.origin}${target.pathname}`).toBe("https://accounts.example.com/reset");
    expect(query).toEqual({
      provider: "password",
      token: link.searchParams.get("token"),
      email: OWNER,
      callbackUrl: `${ORIGIN}/account`,
    });
    // What the client's reader takes from the app's page.
    expect(readPasswordResetLink(target)).toEqual({
      token: link.searchParams.get("token"),
      email: OWNER,
      callbackUrl: `${ORIGIN}/account`,
      provider: "password",
    });
    expect(w.adapter.rows.count().verificationTokens).toBe(1);
  });

  test("the token is only in the redirect's target: no-referrer, no-store, no body, no cookie, no log", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    const link = await mailedLink(w);
    const token = link.searchParams.get("token")!;
    const opened = await w.open(new Jar(), link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    expect(opened.headers.get("cache-control")).toBe("no-store");
    expect(await opened.text()).toBe("");
    for (const [name, value] of opened.headers) {
      if (name === "location") expect(value).toContain(token);
      else expect(value).not.toContain(token);
    }
    const logged = JSON.stringify([
      w.logger.error.mock.calls,
      w.logger.warn.mock.calls,
      w.logger.debug.mock.calls,
    ]);
    expect(logged).not.toContain(token);
  });

  test("a hostile callbackUrl in the link is refused before the token is handed on", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    const link = await mailedLink(w);
    link.searchParams.set("callbackUrl", "https://evil.example/steal");
    const opened = await w.open(new Jar(), link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=InvalidCallbackUrl`);
  });

  test("without a token (where the built-in forgot page leads), the app's page gets no token", async () => {
    const w = world({ config: { pages: { resetPassword: "/reset" } } });
    await w.verifiedUser(OWNER);
    const asked = await w.requestReset(new Jar(), OWNER);
    expect(asked.headers.get("location")).toBe(`${ORIGIN}/auth/reset-password/password`);
    const sent = redirectOf(await send(w.config, new Jar(), "/auth/reset-password/password"));
    expect(sent.target.pathname).toBe("/reset");
    expect(sent.query).toEqual({ provider: "password", callbackUrl: ORIGIN });

    // A token without its address is no link: it is not handed on.
    const half = redirectOf(
      await send(w.config, new Jar(), "/auth/reset-password/password?token=abc"),
    );
    expect(half.query).toEqual({ provider: "password", callbackUrl: ORIGIN });
  });

  test("a reset completes from the app's page: mail link, redirect, the client's resetPassword", async () => {
    const w = world({
      password: { id: "members" },
      config: { pages: { ...PAGES, resetPassword: "/choose-password" } },
    });
    await w.verifiedUser(OWNER);
    const link = await mailedLink(w, "/account");
    expect(link.pathname).toBe("/auth/reset-password/members");
    const { target } = redirectOf(await w.open(new Jar(), link));
    expect(`${target.origin}${target.pathname}`).toBe(`${ORIGIN}/choose-password`);

    // The browser lands on the app's page, which reads the link and posts through the client.
    const browser = browserOn(w.config, target.href);
    configureClient({ basePath: "/auth" });
    const read = readPasswordResetLink();
    expect(read).not.toBeNull();
    const provider = read!.provider;
    expect(provider).toBe("members");
    const done = await resetPassword(
      { token: read!.token, email: read!.email, password: NEW_PASSWORD },
      { provider, callbackUrl: read!.callbackUrl },
    );
    expect(done).toEqual({ ok: true, url: `${ORIGIN}/account` });
    const posted = browser.sent.at(-1)!;
    expect(posted.method).toBe("POST");
    expect(posted.url.href).toBe(`${ORIGIN}/auth/reset-password/members`);
    expect(browser.jar.cookies.get("authjs.session-token")).toBeTruthy();

    // The password changed: the old one is refused, the new one signs in.
    const signIn = async (password: string) => {
      const jar = new Jar();
      return send(w.config, jar, "/auth/callback/members", {
        form: { csrfToken: await csrfToken(w.config, jar), email: OWNER, password },
      });
    };
    expect((await signIn(PASSWORD)).headers.get("location")).toContain("error=CredentialsSignin");
    expect((await signIn(NEW_PASSWORD)).headers.get("location")).toBe(ORIGIN);
    expect(w.adapter.rows.count().verificationTokens).toBe(0);

    // The "your password was changed" email's link leads to the app's forgot page too.
    const told = w.lastMail(OWNER, "passwordChanged");
    const forgot = new URL(told.url);
    const { target: page, query } = redirectOf(await send(w.config, new Jar(), forgot.pathname));
    expect(page.pathname).toBe("/account/forgot");
    expect(query.provider).toBe("members");
  });
});

describe("without the options", () => {
  const config: Partial<AuthConfig> = { rateLimit: { email: { perAddress: false } } };

  test("the built-in sign-up, forgot and reset pages answer", async () => {
    const w = passwordWorld({ config });
    await w.verifiedUser(OWNER);
    const page = async (path: string, heading: string) => {
      const answer = await send(w.config, new Jar(), path);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await answer.text()).toContain(`<h1>${heading}</h1>`);
      return answer;
    };
    await page("/auth/signup/password", "Sign up");
    await page("/auth/forgot-password/password", "Reset your password");
    await page("/auth/reset-password/password", "Check your email");
    const link = await mailedLink(w);
    const reset = await page(link.pathname + link.search, "Choose a new password");
    expect(reset.headers.get("referrer-policy")).toBe("no-referrer");
  });
});
