/**
 * The fixture app in Chromium, with JavaScript: a Server Action sign-in called by React (not a
 * plain form post), client navigation through the proxy, and the client's `useSession()` after
 * `signIn`, `update()` and `signOut` that stay on the page. Chromium is Debian's
 * (tests/browser/chromium.ts); with CI=true a missing one fails.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launch } from "../../../tests/browser/chromium.js";
import { type FixtureApp, startFixture } from "./fixture-app.js";

let app: FixtureApp;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumPath) return;
  // The host from the request (no AUTH_URL), where fixture.test.ts pins AUTH_URL.
  app = await startFixture("fixture", { AUTH_TRUST_HOST: "true" });
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function statusOf(page: Page): Promise<string> {
  return (await page.textContent("#status")) ?? "";
}

describe.skipIf(!chromiumPath)("the fixture app in a browser", { timeout: 60_000 }, () => {
  it("signs in through the Server Action, navigates through the proxy, and signs out", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.origin}/dashboard`);
    // The proxy sent the browser to the sign-in page; the app's own login form signs in.
    expect(new URL(page.url()).pathname).toBe("/api/auth/signin");
    await page.goto(`${app.origin}/login`);
    await page.fill("#username", "alice");
    await page.fill("#password", "wonderland");
    await page.click("#sign-in");
    await page.waitForSelector("#dashboard");
    expect(await page.textContent("#dashboard")).toBe("Dashboard of Alice");
    await page.click("#to-client");
    await page.waitForURL(`${app.origin}/client`);
    await expect.poll(() => statusOf(page)).toBe("authenticated:alice@example.com");
    await page.goto(`${app.origin}/dashboard`);
    await page.click("#sign-out");
    await page.waitForURL(`${app.origin}/`);
    expect(await page.textContent("#who")).toBe("Signed out");
    await context.close();
  });

  it("keeps useSession() current after signIn, update() and signOut on the page", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.origin}/client`);
    expect(await statusOf(page)).toBe("unauthenticated:none");
    await page.click("#client-sign-in");
    await expect.poll(() => statusOf(page)).toBe("authenticated:alice@example.com");
    await page.click("#client-update");
    await expect
      .poll(async () => (await page.request.get(`${app.origin}/api/auth/session`)).json())
      .toMatchObject({ user: { name: "Alice Liddell" } });
    await page.click("#client-sign-out");
    await expect.poll(() => statusOf(page)).toBe("unauthenticated:none");
    await context.close();
  });

  it("renders the seeded session on the first paint, before any script runs", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${app.origin}/login`);
    await page.fill("#username", "alice");
    await page.fill("#password", "wonderland");
    await page.click("#sign-in");
    await page.waitForURL(`${app.origin}/dashboard`);
    await page.goto(`${app.origin}/client`);
    expect(await statusOf(page)).toBe("authenticated:alice@example.com");
    await context.close();
  });
});
