/**
 * Provider tokens and federated sign-out in real Chromium against the built SolidStart example
 * and its local OpenID provider (oidc-provider, refresh tokens rotated on every use, access
 * tokens that live 30 s so that every visit within the 60 s skew renews them):
 *
 * - the "Provider token" page shows the provider's userinfo answer, fetched on the server with
 *   the token `getAccessToken()` returns, visit after visit (each one a refresh grant with the
 *   previous, rotated refresh token: a stale one would be refused and revoke the grant);
 * - a plain sign-out leaves the provider's session (signing in again skips its login form);
 *   "Sign out of the identity provider too" goes through the provider's end-session page with an
 *   `id_token_hint`, lands back on the app signed out, and the provider asks for a login again.
 *
 * Once with JWT sessions and once with database sessions, on two instances started side by side.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";

type App = Demo & { dataDir: string };
const strategies = ["jwt", "database"] as const;

describe.skipIf(!chromiumPath)(
  "provider tokens and federated sign-out, in Chromium",
  { timeout: 90_000 },
  () => {
    const apps = new Map<(typeof strategies)[number], App>();
    let app: App;
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      const [jwt, database, launched] = await Promise.all([
        startExample({ oidcAccessTokenTtl: 30, env: { AUTH_SESSION_STRATEGY: "jwt" } }),
        startExample({ oidcAccessTokenTtl: 30, env: { AUTH_SESSION_STRATEGY: "database" } }),
        launch(),
      ]);
      apps.set("jwt", jwt);
      apps.set("database", database);
      browser = launched;
    }, 300_000);
    afterAll(async () => {
      await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
      await browser?.close();
      for (const started of apps.values()) {
        await started.close();
        removeDataDir(started.dataDir);
      }
    });

    async function newPage(): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      return context.newPage();
    }

    const home = () => `${app.url}/`;
    const status = (page: Page) => page.getByTestId("session-status");

    /**
     * Signs in through the provider from the built-in sign-in page. `login`: the provider must
     * show its login form (no session there), filled in with `address`; otherwise it must not
     * (its session is still alive) and the browser comes straight back.
     */
    async function signInWithProvider(page: Page, address: string, login: boolean): Promise<void> {
      // As a person: the home page's "Sign in" (the first visit types the address).
      if (page.url() === "about:blank") await page.goto(home());
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/api/auth/signin"),
        page.getByTestId("sign-in-link").click(),
      ]);
      const oidc = new URL(app.services.oidc).origin;
      const landed = (url: URL) =>
        (url.origin === oidc && url.pathname.startsWith("/interaction/")) || url.href === home();
      await Promise.all([
        page.waitForURL(landed),
        page.click('button:has-text("Sign in with Gatehouse Demo ID")'),
      ]);
      const askedToLogIn = new URL(page.url()).origin === oidc;
      expect(askedToLogIn).toBe(login);
      if (login) {
        await page.getByTestId("oidc-name").fill("Olivia Tokens");
        await page.getByTestId("oidc-email").fill(address);
        await page.getByTestId("oidc-submit").click();
      }
      await page.waitForURL(home());
      await expect.poll(() => status(page).textContent()).toContain("Signed in as");
      expect(await page.getByTestId("session-email").textContent()).toBe(address);
    }

    /** Opens the provider-token page; resolves with the userinfo answer and the token's expiry. */
    async function readUserinfo(page: Page) {
      // The home page's link the first time, a reload on later visits.
      if (new URL(page.url()).pathname === "/provider-token") await page.reload();
      else await page.getByTestId("home-provider-token").click();
      await page.waitForURL(`${app.url}/provider-token`);
      const shown = page.getByTestId("provider-userinfo");
      await expect
        .poll(async () =>
          (await shown.count()) > 0
            ? "shown"
            : ((await page.locator("section.card").textContent()) ?? ""),
        )
        .toBe("shown");
      return {
        userinfo: JSON.parse((await shown.textContent()) ?? "null") as Record<string, unknown>,
        expiresAt: Date.parse((await shown.getAttribute("data-expires-at")) ?? ""),
      };
    }

    for (const strategy of strategies) {
      test(`${strategy} sessions: the provider-token page shows the provider's userinfo, renewing the token each visit`, async () => {
        app = apps.get(strategy)!;
        const page = await newPage();
        const address = `olivia-token-${Date.now()}@example.com`;
        await signInWithProvider(page, address, true);

        const first = await readUserinfo(page);
        expect(first.userinfo).toMatchObject({ email: address, name: "Olivia Tokens" });
        expect(String(first.userinfo.sub)).toMatch(/^demo-/);
        expect(first.expiresAt).toBeGreaterThan(Date.now());
        // Every visit renews the 30-second token (it expires within the 60 s skew) with the latest
        // refresh token: a later expiry each time. The provider revokes the whole grant if an
        // already used refresh token comes back, so a stale stored token fails the next visit.
        let previous = first.expiresAt;
        for (let visit = 0; visit < 3; visit++) {
          await new Promise((resolve) => setTimeout(resolve, 1100));
          const next = await readUserinfo(page);
          expect(next.userinfo).toEqual(first.userinfo);
          expect(next.expiresAt).toBeGreaterThan(previous);
          previous = next.expiresAt;
        }
        // The token never reaches the browser.
        const html = await page.content();
        expect(html).not.toMatch(/access_token|refresh_token/i);
      });

      test(`${strategy} sessions: federated sign-out ends the provider's session too; a plain one does not`, async () => {
        app = apps.get(strategy)!;
        const page = await newPage();
        const address = `olivia-logout-${Date.now()}@example.com`;
        await signInWithProvider(page, address, true);

        // A plain sign-out: the provider still knows the browser and signs it straight back in.
        await Promise.all([page.waitForURL(home()), page.getByTestId("sign-out").click()]);
        await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
        await signInWithProvider(page, address, false);

        // Federated: the provider's end-session page, with the hint, the client and the way back.
        const oidc = new URL(app.services.oidc).origin;
        await Promise.all([
          page.waitForURL((url) => url.origin === oidc),
          page.getByTestId("sign-out-federated").click(),
        ]);
        const endSession = new URL(page.url());
        expect(endSession.pathname).toBe("/session/end");
        expect(endSession.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        expect(endSession.searchParams.get("client_id")).toBe("gatehouse-demo");
        expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(home());
        // The app's session is already gone before the provider answers.
        const session = await (await page.request.get(`${app.url}/api/auth/session`)).json();
        expect(session).toBeNull();

        await Promise.all([page.waitForURL(home()), page.getByTestId("oidc-logout").click()]);
        await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");

        // The provider forgot the browser: it asks for a login again.
        await signInWithProvider(page, address, true);
      });
    }
  },
);
