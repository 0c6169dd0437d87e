/**
 * Sessions people can see and end, in real Chromium against the built SolidStart example: two
 * separate browsers sign in to one account, the first lists both on "Your sessions", ends the
 * second, and the second is signed out on its next request; "Sign out everywhere else" ends the
 * others and keeps the first; the activity page shows what happened. Once with JWT sessions
 * (the revocation store) and once with database sessions (`AUTH_SESSION_STRATEGY=database`), on
 * two instances of the app started side by side.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { DEMO_ACCOUNT, removeDataDir, startExample, tmpDir } from "./example-app.js";

type App = Demo & { dataDir: string };
const strategies = ["jwt", "database"] as const;

describe.skipIf(!chromiumPath)(
  "sessions people can see and end, in Chromium",
  {
    timeout: 90_000,
  },
  () => {
    const apps = new Map<(typeof strategies)[number], App>();
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      const [jwt, database, launched] = await Promise.all([
        startExample({ env: { AUTH_SESSION_STRATEGY: "jwt" } }),
        startExample({ env: { AUTH_SESSION_STRATEGY: "database" } }),
        launch(),
      ]);
      apps.set("jwt", jwt);
      apps.set("database", database);
      browser = launched;
    }, 300_000);
    afterAll(async () => {
      await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
      await browser?.close();
      for (const app of apps.values()) {
        await app.close();
        removeDataDir(app.dataDir);
      }
    });

    /** A separate browser (its own cookie jar), signed in with the demo account's password. */
    async function signedInBrowser(app: App): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${app.url}/`);
      // As a person: the home page's "Sign in", the built-in page, back home.
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/api/auth/signin"),
        page.getByTestId("sign-in-link").click(),
      ]);
      await page.fill("#input-email-for-credentials-provider", DEMO_ACCOUNT.email);
      await page.fill("#input-password-for-credentials-provider", DEMO_ACCOUNT.password);
      await Promise.all([
        page.waitForURL(`${app.url}/`),
        page.click('button:has-text("Sign in with Email and password")'),
      ]);
      await expect
        .poll(() => page.getByTestId("session-status").textContent())
        .toContain("Signed in as");
      return page;
    }

    /** Opens "Your sessions" and waits for the list; resolves with the ids shown, current first. */
    async function openSessions(app: App, page: Page, count: number) {
      // From any page of the demo its navigation leads there; already there, a reload.
      if (new URL(page.url()).pathname === "/sessions") await page.reload();
      else await page.getByTestId("nav-sessions").click();
      await page.waitForURL(`${app.url}/sessions`);
      const rows = page.getByTestId("session-row");
      await expect.poll(() => rows.count()).toBe(count);
      const current = await page
        .locator('[data-testid="session-row"]:has([data-testid="session-current"])')
        .getAttribute("data-session-id");
      const all = await rows.evaluateAll((items) =>
        items.map((item) => item.getAttribute("data-session-id") ?? ""),
      );
      return { current, others: all.filter((id) => id !== current) };
    }

    /** Keeps a screenshot under .tmp/screenshots, for a look at the pages. */
    async function keepScreenshot(page: Page, name: string): Promise<void> {
      const dir = join(tmpDir, "screenshots");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), await page.screenshot({ fullPage: true }));
    }

    async function hasSessionCookie(page: Page): Promise<boolean> {
      return (await page.context().cookies()).some((c) => c.name.endsWith("session-token"));
    }

    async function expectSignedOut(app: App, page: Page): Promise<void> {
      // Its next request: back to the home page through the navigation, and a reload.
      await page.getByTestId("nav-home").click();
      await page.waitForURL(`${app.url}/`);
      await page.reload();
      await expect
        .poll(() => page.getByTestId("session-status").textContent())
        .toBe("You are not signed in.");
      const session = await (await page.request.get(`${app.url}/api/auth/session`)).json();
      expect(session).toBeNull();
    }

    for (const strategy of strategies) {
      test(`${strategy} sessions: the first browser ends the second, which is signed out on its next request`, async () => {
        const app = apps.get(strategy)!;
        const first = await signedInBrowser(app);
        const second = await signedInBrowser(app);

        // Each browser sees both sessions, its own marked; the ids are public ids, not tokens.
        const seenBySecond = await openSessions(app, second, 2);
        const seenByFirst = await openSessions(app, first, 2);
        await keepScreenshot(first, `sessions-${strategy}.png`);
        expect(seenByFirst.others).toEqual([seenBySecond.current]);
        expect(seenBySecond.others).toEqual([seenByFirst.current]);
        const cookies = await second.context().cookies();
        const token = cookies.find((c) => c.name.endsWith("session-token"))?.value;
        expect(token).toBeTruthy();
        expect(seenBySecond.current).not.toBe(token);
        expect(seenBySecond.current).toMatch(/^[A-Za-z0-9_-]{22}$/);

        await first.getByTestId("session-revoke").click();
        await expect
          .poll(() => first.getByTestId("sessions-message").textContent())
          .toBe("Ended 1 session.");
        await expect.poll(() => first.getByTestId("session-row").count()).toBe(1);
        expect(await first.getByTestId("session-current").count()).toBe(1);

        // The second browser still holds its cookie until its next request refuses it.
        await expectSignedOut(app, second);
        expect(await hasSessionCookie(second)).toBe(false);
        await second.getByTestId("nav-sessions").click();
        await expect.poll(() => second.getByTestId("sessions-signed-out").count()).toBe(1);

        // The first is still signed in, its session unchanged.
        expect((await openSessions(app, first, 1)).current).toBe(seenByFirst.current);
      });

      test(`${strategy} sessions: "Sign out everywhere else" ends the others, keeps this one, and the activity page tells`, async () => {
        const app = apps.get(strategy)!;
        const [first, second, third] = [
          await signedInBrowser(app),
          await signedInBrowser(app),
          await signedInBrowser(app),
        ];
        // The first test's survivor is still signed in: four sessions of the demo account.
        const before = await openSessions(app, first, 4);
        expect(before.others).toHaveLength(3);

        await first.getByTestId("sessions-revoke-others").click();
        await expect
          .poll(() => first.getByTestId("sessions-message").textContent())
          .toBe("Ended 3 sessions.");
        await expect.poll(() => first.getByTestId("session-row").count()).toBe(1);
        expect((await openSessions(app, first, 1)).current).toBe(before.current);
        await expectSignedOut(app, second);
        await expectSignedOut(app, third);

        // The security log, read on the server for the signed-in user, newest first.
        await first.getByTestId("nav-activity").click();
        await first.waitForURL(`${app.url}/activity`);
        const rows = first.getByTestId("activity-row");
        await expect.poll(() => rows.count()).toBeGreaterThan(0);
        const types = await rows.evaluateAll((items) =>
          items.map((item) => item.getAttribute("data-type")),
        );
        expect(types).toContain("signIn");
        expect(types).toContain("sessionRevoked");
        expect(types.indexOf("sessionRevoked")).toBeLessThan(types.lastIndexOf("signIn"));
        await keepScreenshot(first, `activity-${strategy}.png`);

        // Signed out, the activity page sends the visitor to the sign-in page.
        const response = await second.request.get(`${app.url}/activity`, { maxRedirects: 0 });
        expect(response.status()).toBe(302);
        expect(new URL(response.headers().location ?? "", app.url).pathname).toBe(
          "/api/auth/signin",
        );
      });
    }
  },
);
