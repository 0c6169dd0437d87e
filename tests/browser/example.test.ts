/**
 * The SolidStart example in real Chromium: every way to sign in that `npm start` offers, the
 * protected pages, the session's life (reload, update, sign-out), against the built app in demo
 * mode with its own SMTP capture and OpenID provider. No outside network.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { DEMO_ACCOUNT, removeDataDir, startExample, tmpDir } from "./example-app.js";
import { summarizePng } from "./png.js";

const screenshots = join(tmpDir, "screenshots");

describe.skipIf(!chromiumPath)("the SolidStart example in Chromium", { timeout: 60_000 }, () => {
  let app: Demo & { dataDir: string };
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startExample(), launch()]);
    mkdirSync(screenshots, { recursive: true });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (app) removeDataDir(app.dataDir);
  });

  /** A fresh browser profile (no cookies), optionally with a virtual passkey authenticator. */
  async function newPage(options: { authenticator?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    if (options.authenticator) await addVirtualAuthenticator(context, page);
    return page;
  }

  const home = () => `${app.url}/`;
  const status = (page: Page) => page.getByTestId("session-status");

  /** Waits for the home page to have hydrated and to say who is signed in. */
  async function expectSignedInAs(page: Page, name: string): Promise<void> {
    await page.waitForURL(home());
    await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${name}`);
  }

  async function signInWithPassword(page: Page, password = DEMO_ACCOUNT.password): Promise<void> {
    await page.goto(`${app.url}/api/auth/signin`);
    await page.fill("#input-email-for-credentials-provider", DEMO_ACCOUNT.email);
    await page.fill("#input-password-for-credentials-provider", password);
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/" || url.pathname === "/api/auth/signin"),
      page.click('button:has-text("Sign in with Email and password")'),
    ]);
  }

  /** Screenshot of the page, kept under .tmp/screenshots, checked to show something. */
  async function keepScreenshot(page: Page, name: string): Promise<void> {
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(join(screenshots, name), png);
    expect(png.length).toBeGreaterThan(5_000);
    const { width, height, colours } = summarizePng(png);
    expect(width).toBeGreaterThan(100);
    expect(height).toBeGreaterThan(100);
    expect(colours).toBeGreaterThan(10);
  }

  test("signed out, the home page offers to sign in and both protected pages send you home", async () => {
    const page = await newPage();
    await page.goto(home());
    await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    // Demo mode shows the demo account on the home page.
    expect(await page.getByTestId("demo-email").textContent()).toBe(DEMO_ACCOUNT.email);
    // Demo mode's methods: the local OpenID provider, and no TikTok without its credentials.
    const providers = await (await page.request.get(`${app.url}/api/auth/providers`)).json();
    expect(Object.keys(providers).sort()).toEqual(["credentials", "nodemailer", "oidc", "passkey"]);

    // Server-rendered: the query's redirect is a 302 before any HTML.
    const ssr = await page.request.get(`${app.url}/protected`, { maxRedirects: 0 });
    expect(ssr.status()).toBe(302);
    expect(ssr.headers()["location"]).toBe("/");
    const guarded = await page.request.get(`${app.url}/middleware-protected`, { maxRedirects: 0 });
    expect(guarded.status()).toBe(302);
    expect(new URL(guarded.headers()["location"] ?? "", app.url).pathname).toBe("/");

    for (const path of ["/protected", "/middleware-protected"]) {
      await page.goto(`${app.url}${path}`);
      expect(page.url()).toBe(home());
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    }
    // Client-side navigation to the SSR-protected page: the query's redirect applies too.
    await page.getByTestId("nav-protected").click();
    await page.waitForURL(home());
    expect(await page.getByTestId("protected-content").count()).toBe(0);
  });

  test("credentials: sign in, the session survives a reload, protected pages render, sign-out ends it", async () => {
    const page = await newPage();
    await page.goto(`${app.url}/api/auth/signin`);
    // The built-in page wears the app's brand: its colour, logo and button text colour.
    const theme = await page.evaluate(() => {
      const style = getComputedStyle(document.body);
      return [
        style.getPropertyValue("--brand-color"),
        style.getPropertyValue("--button-text-color"),
      ];
    });
    expect(theme).toEqual(["#1d4ed8", "#ffffff"]);
    expect(await page.locator("img.logo").getAttribute("src")).toBe("/logo.svg");
    await keepScreenshot(page, "example-signin.png");
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");
    expect(await page.getByTestId("session-email").textContent()).toBe(DEMO_ACCOUNT.email);
    await keepScreenshot(page, "example-home-signed-in.png");

    await page.reload();
    await expectSignedInAs(page, "Demo User");

    await page.goto(`${app.url}/protected`);
    expect(await page.getByTestId("protected-name").textContent()).toBe("Demo User");
    await page.goto(`${app.url}/middleware-protected`);
    await expect.poll(() => page.getByTestId("middleware-name").textContent()).toBe("Demo User");
    // Client-side navigation between the pages keeps the session too.
    await page.getByTestId("nav-protected").click();
    await expect.poll(() => page.getByTestId("protected-name").textContent()).toBe("Demo User");

    await page.goto(home());
    await page.getByTestId("sign-out").click();
    await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    await page.reload();
    await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    const cookies = await page.context().cookies();
    expect(cookies.filter((cookie) => cookie.name.endsWith("session-token"))).toEqual([]);
    await page.goto(`${app.url}/protected`);
    expect(page.url()).toBe(home());
  });

  test("a wrong password leaves you on the sign-in page with its error", async () => {
    const page = await newPage();
    await signInWithPassword(page, "not-the-password");
    const url = new URL(page.url());
    expect(url.pathname).toBe("/api/auth/signin");
    expect(url.searchParams.get("error")).toBe("CredentialsSignin");
    const error = page.getByRole("alert");
    expect(await error.isVisible()).toBe(true);
    expect(await error.textContent()).toMatch(/sign in failed|check the details/i);
    expect((await page.context().cookies()).some((c) => c.name.endsWith("session-token"))).toBe(
      false,
    );
  });

  test("email link: the message reaches the SMTP capture, /dev/mailbox shows it, its link and confirmation sign in", async () => {
    const page = await newPage();
    const address = `reader-${Date.now()}@example.com`;
    await page.goto(`${app.url}/api/auth/signin`);
    await page.fill("#input-email-for-nodemailer-provider", address);
    await Promise.all([
      page.waitForURL(/\/api\/auth\/verify-request/),
      page.click('button:has-text("Sign in with Email link")'),
    ]);

    await page.goto(`${app.url}/dev/mailbox`);
    const message = page.getByTestId("mailbox-message").filter({ hasText: address });
    expect(await message.count()).toBe(1);
    const link = await message.getByTestId("mailbox-link").getAttribute("href");
    expect(new URL(link ?? "").pathname).toBe("/api/auth/callback/nodemailer");
    await page.goto(link!);
    // Scanner-safe links: the link opens a page whose one button signs in.
    await page.click(`button:has-text("Sign in as ${address}")`);
    await expectSignedInAs(page, address);
    expect(await page.getByTestId("session-email").textContent()).toBe(address);
  });

  test("OAuth: sign in through the local OpenID provider's own login form", async () => {
    const page = await newPage();
    const address = `olivia-${Date.now()}@example.com`;
    await page.goto(`${app.url}/api/auth/signin`);
    await Promise.all([
      page.waitForURL((url) => url.origin === app.services.oidc),
      page.click('button:has-text("Sign in with Gatehouse Demo ID")'),
    ]);
    await page.getByTestId("oidc-name").fill("Olivia Browser");
    await page.getByTestId("oidc-email").fill(address);
    await page.getByTestId("oidc-submit").click();
    await expectSignedInAs(page, "Olivia Browser");
    expect(await page.getByTestId("session-email").textContent()).toBe(address);
  });

  test("passkeys: register one while signed in, then sign in with it alone", async () => {
    const page = await newPage({ authenticator: true });
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");

    await page.goto(`${app.url}/api/auth/signin`);
    await Promise.all([page.waitForURL(home()), page.click("#registerButton-passkey")]);
    await expectSignedInAs(page, "Demo User");

    // A new browser session on the same authenticator: no cookies, no password.
    await page.context().clearCookies();
    await page.goto(home());
    await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    await page.goto(`${app.url}/api/auth/signin`);
    await Promise.all([page.waitForURL(home()), page.click("#submitButton-passkey")]);
    await expectSignedInAs(page, "Demo User");
  });

  test("passkeys: a new account signs up with a passkey and signs back in with it", async () => {
    const page = await newPage({ authenticator: true });
    await page.goto(`${app.url}/api/auth/signin`);
    await Promise.all([page.waitForURL(home()), page.click("#registerButton-passkey")]);
    // An account made by a passkey alone has no name and no address.
    await expectSignedInAs(page, "a passkey user");

    await page.context().clearCookies();
    await page.goto(`${app.url}/protected`);
    expect(page.url()).toBe(home());
    await page.goto(`${app.url}/api/auth/signin`);
    await Promise.all([page.waitForURL(home()), page.click("#submitButton-passkey")]);
    await expectSignedInAs(page, "a passkey user");
    await page.goto(`${app.url}/protected`);
    expect(await page.getByTestId("protected-name").textContent()).toBe("a passkey user");
  });

  test("a session update (POST /session, trigger update) shows on the page and stays", async () => {
    const page = await newPage();
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");

    await page.goto(`${app.url}/profile`);
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");
    const posted = page.waitForRequest(
      (request) => request.method() === "POST" && request.url() === `${app.url}/api/auth/session`,
    );
    await page.getByTestId("profile-name-input").fill("Renamed Reader");
    await page.getByTestId("profile-save").click();
    await posted;
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Renamed Reader");

    await page.goto(home());
    await expectSignedInAs(page, "Renamed Reader");
    await page.reload();
    await expectSignedInAs(page, "Renamed Reader");
    await page.goto(`${app.url}/protected`);
    expect(await page.getByTestId("protected-name").textContent()).toBe("Renamed Reader");
  });
});
