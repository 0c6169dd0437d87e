/**
 * The SolidStart example in real Chromium, used as a person uses it: each test opens one address,
 * then reaches every page by clicking what the pages show (the demo's links and buttons, the
 * built-in sign-in pages, the local OpenID provider's forms, the mailbox). Every sign-in method
 * that `npm start` offers, the protected pages, the session's life, passkeys from the profile
 * page, the sessions and activity pages, the rate limit, a phone-sized screen; the last test
 * checks that every link and button the demo showed was clicked.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { DEMO_ACCOUNT, removeDataDir, startExample, tmpDir } from "./example-app.js";
import { summarizePng } from "./png.js";
import { Tour } from "./tour.js";

const screenshots = join(tmpDir, "screenshots");

describe.skipIf(!chromiumPath)("the SolidStart example in Chromium", { timeout: 90_000 }, () => {
  let app: Demo & { dataDir: string };
  let browser: Browser;
  let tour: Tour;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startExample(), launch()]);
    tour = new Tour(new URL(app.url).origin);
    mkdirSync(screenshots, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (app) removeDataDir(app.dataDir);
  });

  /** A fresh browser profile (no cookies), optionally with a virtual passkey authenticator. */
  async function newPage(options: { authenticator?: boolean; width?: number } = {}): Promise<Page> {
    const context = await browser.newContext(
      options.width ? { viewport: { width: options.width, height: 844 } } : {},
    );
    contexts.push(context);
    const page = await context.newPage();
    if (options.authenticator) await addVirtualAuthenticator(context, page);
    return page;
  }

  const home = () => `${app.url}/`;
  const at = (path: string) => `${app.url}${path}`;
  const status = (page: Page) => page.getByTestId("session-status");
  const signedOutText = "You are not signed in.";

  /**
   * Opens the demo's home page: the address a test types first, and the one a person types to
   * leave a built-in auth page (which has no link back to the app) without using it.
   */
  async function open(page: Page): Promise<void> {
    await page.goto(home());
    await tour.look(page);
  }

  /** Waits for the built-in sign-in page, asked to come back to `callbackPath`. */
  async function onSignInPage(page: Page, callbackPath: string): Promise<void> {
    await page.waitForURL(
      (url) =>
        url.pathname === "/api/auth/signin" &&
        new URL(url.searchParams.get("callbackUrl") ?? "", app.url).pathname === callbackPath,
    );
  }

  /** On the built-in sign-in page: the email and password form, submitted. */
  async function submitPassword(
    page: Page,
    email = DEMO_ACCOUNT.email,
    password = DEMO_ACCOUNT.password,
  ): Promise<void> {
    await page.fill("#input-email-for-credentials-provider", email);
    await page.fill("#input-password-for-credentials-provider", password);
    await Promise.all([
      page.waitForEvent("load"),
      page.click('button:has-text("Sign in with Email and password")'),
    ]);
  }

  /** From a demo page showing the sign-in link `testId`: the sign-in page, the password, back. */
  async function signInWithPassword(page: Page, testId = "sign-in-link"): Promise<void> {
    const back = new URL(page.url()).pathname;
    await tour.click(page, testId);
    await onSignInPage(page, back);
    await submitPassword(page);
    await page.waitForURL(at(back));
  }

  async function expectSignedInAs(page: Page, name: string): Promise<void> {
    await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${name}`);
  }

  /** The page is no wider than the screen: nothing to scroll sideways. */
  async function expectNoSidewaysScroll(page: Page): Promise<void> {
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(scroll, `${page.url()} is ${scroll}px wide on a ${client}px screen`).toBeLessThanOrEqual(
      client,
    );
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

  test("signed out, each protected page goes through the sign-in page and back; the server-rendered page signs out with a plain form", async () => {
    const page = await newPage();
    await open(page);
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    expect(await page.getByTestId("demo-email").textContent()).toBe(DEMO_ACCOUNT.email);
    // Demo mode's methods: the local OpenID provider, and no TikTok without its credentials.
    const providers = await (await page.request.get(at("/api/auth/providers"))).json();
    expect(Object.keys(providers).sort()).toEqual([
      "credentials",
      "nodemailer",
      "oidc",
      "passkey",
      "password",
    ]);
    // Server-rendered: the redirect is a 302 before any HTML.
    for (const path of ["/protected", "/middleware-protected"]) {
      const answer = await page.request.get(at(path), { maxRedirects: 0 });
      expect(answer.status()).toBe(302);
      const location = new URL(answer.headers().location ?? "", app.url);
      expect(location.pathname).toBe("/api/auth/signin");
      expect(location.searchParams.get("callbackUrl")).toBe(path);
    }

    // The SSR-protected page: sign in, come back, sign out with its form.
    await tour.click(page, "nav-protected");
    await onSignInPage(page, "/protected");
    await submitPassword(page);
    await page.waitForURL(at("/protected"));
    expect(await page.getByTestId("protected-name").textContent()).toBe("Demo User");
    await tour.click(page, "ssr-sign-out");
    await page.waitForURL(home());
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    const cookies = await page.context().cookies();
    expect(cookies.filter((cookie) => cookie.name.endsWith("session-token"))).toEqual([]);

    // The middleware-protected page, the same way.
    await tour.click(page, "home-middleware-protected");
    await onSignInPage(page, "/middleware-protected");
    await submitPassword(page);
    await page.waitForURL(at("/middleware-protected"));
    await expect.poll(() => page.getByTestId("middleware-name").textContent()).toBe("Demo User");
    await tour.click(page, "nav-home");
    await expectSignedInAs(page, "Demo User");
    expect(await page.getByTestId("session-method").textContent()).toBe("Email and password");
    // Signed in with a password: nothing to sign out of at an identity provider.
    expect(await page.getByTestId("sign-out-federated").count()).toBe(0);
    await tour.click(page, "sign-out");
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);

    // Signed out, the other pages ask to sign in too; the person changes their mind.
    await tour.click(page, "nav-activity");
    await onSignInPage(page, "/activity");
    await open(page);
    await tour.click(page, "home-provider-token");
    await onSignInPage(page, "/provider-token");
    await open(page);
    await tour.click(page, "nav-profile");
    await expect.poll(() => page.getByTestId("profile-signed-out").count()).toBe(1);
    await tour.click(page, "profile-sign-in");
    await onSignInPage(page, "/profile");
    await open(page);
    await tour.click(page, "nav-sessions");
    await expect.poll(() => page.getByTestId("sessions-signed-out").count()).toBe(1);
    await signInWithPassword(page, "sessions-sign-in");
    await expect.poll(() => page.getByTestId("session-row").count()).toBeGreaterThan(0);
  });

  test("credentials from the home page: the built-in page wears the brand, the session survives a reload and client navigation, sign-out ends it", async () => {
    const page = await newPage();
    await open(page);
    await tour.click(page, "sign-in-link");
    await onSignInPage(page, "/");
    const theme = await page.evaluate(() => {
      const style = getComputedStyle(document.body);
      return [
        style.getPropertyValue("--brand-color"),
        style.getPropertyValue("--button-text-color"),
      ];
    });
    expect(theme).toEqual(["#1d4ed8", "#ffffff"]);
    expect(await page.locator("img.logo").getAttribute("src")).toBe("/logo.svg");
    // The passkey block has its buttons and no input: a passkey names its user by itself.
    expect(await page.locator("#passkey-form").count()).toBe(1);
    expect(await page.locator("#passkey-form input:not([type=hidden])").count()).toBe(0);
    await keepScreenshot(page, "example-signin.png");
    await submitPassword(page);
    await page.waitForURL(home());
    await expectSignedInAs(page, "Demo User");
    expect(await page.getByTestId("session-email").textContent()).toBe(DEMO_ACCOUNT.email);
    expect(await page.getByTestId("session-card").textContent()).not.toMatch(/GMT/);
    await keepScreenshot(page, "example-home-signed-in.png");

    await page.reload();
    await expectSignedInAs(page, "Demo User");
    await tour.click(page, "home-protected");
    await expect.poll(() => page.getByTestId("protected-name").textContent()).toBe("Demo User");
    await tour.click(page, "nav-middleware-protected");
    await expect.poll(() => page.getByTestId("middleware-name").textContent()).toBe("Demo User");
    await tour.click(page, "nav-protected");
    await expect.poll(() => page.getByTestId("protected-name").textContent()).toBe("Demo User");

    await tour.click(page, "nav-home");
    await tour.click(page, "sign-out");
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    await page.reload();
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    const cookies = await page.context().cookies();
    expect(cookies.filter((cookie) => cookie.name.endsWith("session-token"))).toEqual([]);
  });

  test("email link, then wrong passwords: the limit shows within a few tries, and the activity page counts them on one line", async () => {
    const page = await newPage();
    const address = `reader-${Date.now()}@example.com`;
    await open(page);
    expect(await page.getByTestId("demo-limits").textContent()).toMatch(
      /after 5 wrong passwords for one account, each further try waits 1 second/,
    );

    /** The email link from the home page: the sign-in page, the mailbox, the confirmation. */
    async function signInByEmail(): Promise<void> {
      await tour.click(page, "sign-in-link");
      await onSignInPage(page, "/");
      await page.fill("#input-email-for-nodemailer-provider", address);
      await Promise.all([
        page.waitForURL(/\/api\/auth\/verify-request/),
        page.click('button:has-text("Sign in with Email link")'),
      ]);
      // The person goes back to the demo and opens its mailbox.
      await page.goto(home());
      await tour.click(page, "demo-mailbox-link");
      await page.waitForURL(at("/dev/mailbox"));
      await tour.click(page, "mailbox-refresh");
      const message = page.getByTestId("mailbox-message").filter({ hasText: address }).first();
      await expect.poll(() => message.count()).toBe(1);
      const link = message.getByTestId("mailbox-link");
      expect(new URL((await link.getAttribute("href")) ?? "").pathname).toBe(
        "/api/auth/callback/nodemailer",
      );
      await tour.look(page);
      await link.click();
      tour.clicked.add("mailbox-link");
      // Scanner-safe links: the link opens a page whose one button signs in.
      await page.click(`button:has-text("Sign in as ${address}")`);
      await page.waitForURL(home());
      await expectSignedInAs(page, address);
    }

    await signInByEmail();
    await tour.click(page, "sign-out");
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);

    // Wrong passwords for that account, as fast as a person retries: refused within a few
    // tries after the fifth (the integration counts this browser's loopback address).
    await tour.click(page, "sign-in-link");
    await onSignInPage(page, "/");
    let tries = 0;
    let refusal = "";
    while (tries < 12 && !refusal) {
      tries++;
      await submitPassword(page, address, "not-the-password");
      const url = new URL(page.url());
      expect(url.pathname).toBe("/api/auth/signin");
      const error = url.searchParams.get("error");
      expect(["CredentialsSignin", "RateLimited"]).toContain(error);
      const alert = page.getByRole("alert");
      expect(await alert.isVisible()).toBe(true);
      if (error === "RateLimited") refusal = (await alert.textContent()) ?? "";
      else expect(await alert.textContent()).toMatch(/sign in failed|check the details/i);
    }
    expect(tries).toBeGreaterThan(5);
    expect(refusal).toMatch(/too many attempts/i);
    expect((await page.context().cookies()).some((c) => c.name.endsWith("session-token"))).toBe(
      false,
    );

    // Signed in again by email: the failures are one line of the activity page, with a count.
    await page.goto(home());
    await signInByEmail();
    await tour.click(page, "home-activity");
    await page.waitForURL(at("/activity"));
    const failed = page.locator('[data-testid="activity-row"][data-type="signInFailed"]');
    await expect.poll(() => failed.count()).toBeGreaterThan(0);
    // One line for the wrong passwords, and at most one more for the refusals that followed.
    const counts = await failed.evaluateAll((rows) =>
      rows.map((row) => Number(row.getAttribute("data-count"))),
    );
    expect(counts.length).toBeLessThanOrEqual(2);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
    expect(await page.getByTestId("activity-count").first().textContent()).toMatch(/× \d+/);
    expect(await page.locator("main").textContent()).not.toMatch(/GMT/);
    await keepScreenshot(page, "example-activity.png");
  });

  test("OpenID Connect: the provider's login form, then only this session offers to sign out of the provider too, which works", async () => {
    const page = await newPage();
    const address = `olivia-${Date.now()}@example.com`;
    await open(page);
    await tour.click(page, "sign-in-link");
    await onSignInPage(page, "/");
    await Promise.all([
      page.waitForURL((url) => url.origin === app.services.oidc),
      page.click('button:has-text("Sign in with Gatehouse Demo ID")'),
    ]);
    await page.getByTestId("oidc-name").fill("Olivia Browser");
    await page.getByTestId("oidc-email").fill(address);
    await page.getByTestId("oidc-submit").click();
    await page.waitForURL(home());
    await expectSignedInAs(page, "Olivia Browser");
    expect(await page.getByTestId("session-email").textContent()).toBe(address);
    expect(await page.getByTestId("session-method").textContent()).toBe("Gatehouse Demo ID");

    await tour.click(page, "home-provider-token");
    await page.waitForURL(at("/provider-token"));
    await expect.poll(() => page.getByTestId("provider-userinfo").textContent()).toContain(address);

    await tour.click(page, "nav-home");
    await expectSignedInAs(page, "Olivia Browser");
    await Promise.all([
      page.waitForURL((url) => url.origin === app.services.oidc),
      tour.click(page, "sign-out-federated"),
    ]);
    await Promise.all([page.waitForURL(home()), page.getByTestId("oidc-logout").click()]);
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
  });

  test("passkeys: signed in with a password, add one on the profile page, then sign in with it alone", async () => {
    const page = await newPage({ authenticator: true });
    await open(page);
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");

    await tour.click(page, "nav-profile");
    await page.waitForURL(at("/profile"));
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");
    await tour.click(page, "passkey-add");
    await expect
      .poll(() => page.getByTestId("passkey-message").textContent())
      .toBe("Passkey added: next time, sign in with it.");
    // Still signed in as the same person.
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");

    // A new browser session on the same authenticator: no cookies, no password. The home
    // page's own passkey button (the client's signIn("passkey")), not the sign-in page.
    await page.context().clearCookies();
    await page.reload();
    await expect.poll(() => page.getByTestId("profile-signed-out").count()).toBe(1);
    await tour.click(page, "nav-home");
    await page.waitForURL(home());
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    await Promise.all([page.waitForEvent("load"), tour.click(page, "passkey-sign-in")]);
    await expectSignedInAs(page, "Demo User");
    expect(await page.getByTestId("session-method").textContent()).toBe("Passkey");
  });

  test("passkeys: a new account signs up with a passkey on the built-in page and signs back in with it", async () => {
    const page = await newPage({ authenticator: true });
    await open(page);
    await tour.click(page, "sign-in-link");
    await onSignInPage(page, "/");
    await Promise.all([page.waitForURL(home()), page.click("#registerButton-passkey")]);
    // An account made by a passkey alone has no name and no address.
    await expectSignedInAs(page, "a passkey user");
    expect(await page.getByTestId("session-method").textContent()).toBe("Passkey");

    await page.context().clearCookies();
    await page.reload();
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    await tour.click(page, "sign-in-link");
    await onSignInPage(page, "/");
    await Promise.all([page.waitForURL(home()), page.click("#submitButton-passkey")]);
    await expectSignedInAs(page, "a passkey user");
    await tour.click(page, "nav-protected");
    await expect
      .poll(() => page.getByTestId("protected-name").textContent())
      .toBe("a passkey user");
  });

  test("the profile page updates the session (POST /session), and the provider-token page signs in with the provider", async () => {
    const page = await newPage();
    await open(page);
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");

    await tour.click(page, "home-profile");
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");
    const posted = page.waitForRequest(
      (request) => request.method() === "POST" && request.url() === at("/api/auth/session"),
    );
    await page.getByTestId("profile-name-input").fill("Renamed Reader");
    await tour.click(page, "profile-save");
    await posted;
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Renamed Reader");

    await tour.click(page, "nav-home");
    await expectSignedInAs(page, "Renamed Reader");
    await page.reload();
    await expectSignedInAs(page, "Renamed Reader");
    await tour.click(page, "nav-protected");
    await expect
      .poll(() => page.getByTestId("protected-name").textContent())
      .toBe("Renamed Reader");

    // Signed in with a password, the provider-token page offers to sign in with the provider.
    await tour.click(page, "nav-home");
    await tour.click(page, "home-provider-token");
    await expect.poll(() => page.getByTestId("provider-token-sign-in-oidc").count()).toBe(1);
    await Promise.all([
      page.waitForURL((url) => url.origin === app.services.oidc),
      tour.click(page, "provider-token-sign-in-oidc"),
    ]);
    await page.getByTestId("oidc-name").fill("Renamed Reader");
    await page.getByTestId("oidc-email").fill(`renamed-${Date.now()}@example.com`);
    await page.getByTestId("oidc-submit").click();
    await page.waitForURL(at("/provider-token"));
    await expect
      .poll(() => page.getByTestId("provider-userinfo").textContent())
      .toContain("Renamed Reader");
  });

  test("your sessions: readable times and sign-in methods, end one, then sign out everywhere else", async () => {
    const first = await newPage();
    const second = await newPage();
    for (const page of [first, second]) {
      await open(page);
      await signInWithPassword(page);
      await expectSignedInAs(page, "Demo User");
    }
    await tour.click(first, "nav-sessions");
    const rows = first.getByTestId("session-row");
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    const details = await first.getByTestId("session-details").allTextContents();
    // The demo account's other sessions come from the tests before: passwords, passkeys and
    // the OpenID provider (linked on the provider-token page).
    for (const text of details) {
      expect(text).toMatch(/^Signed in with (Email and password|Passkey|Gatehouse Demo ID) on /);
      expect(text).not.toMatch(/GMT|with (credentials|passkey|oidc)\b/);
    }
    const current = first.locator(
      '[data-testid="session-row"]:has([data-testid="session-current"])',
    );
    expect(await current.getByTestId("session-details").textContent()).toMatch(
      /^Signed in with Email and password on .*; active now/,
    );
    // The button sits beside the description, not inside its text.
    expect(await first.locator(".details [data-testid=session-revoke]").count()).toBe(0);
    await keepScreenshot(first, "example-sessions.png");

    const count = await rows.count();
    await tour.click(first, "session-revoke");
    await expect
      .poll(() => first.getByTestId("sessions-message").textContent())
      .toBe("Ended 1 session.");
    await expect.poll(() => rows.count()).toBe(count - 1);
    await tour.click(first, "sessions-revoke-others");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await first.getByTestId("session-current").count()).toBe(1);

    // The second browser was among the others: its next request finds it signed out.
    await second.reload();
    await expect.poll(() => status(second).textContent()).toBe(signedOutText);
    // "Sign out everywhere else" ends every session issued in its second or before (token times
    // are whole seconds; docs/sessions.md): a person takes longer than that to sign in again.
    await new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));
    await signInWithPassword(second);
    await tour.click(second, "home-sessions");
    await expect.poll(() => second.getByTestId("session-row").count()).toBe(2);
    expect(await second.getByTestId("session-current").count()).toBe(1);
  });

  test("on a 390 px wide screen, no page scrolls sideways", async () => {
    const page = await newPage({ width: 390 });
    await open(page);
    await expectNoSidewaysScroll(page);
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");
    await expectNoSidewaysScroll(page);
    for (const [link, path] of [
      ["nav-protected", "/protected"],
      ["nav-middleware-protected", "/middleware-protected"],
      ["nav-profile", "/profile"],
      ["nav-sessions", "/sessions"],
      ["nav-activity", "/activity"],
      ["nav-home", "/"],
    ] as const) {
      await tour.click(page, link);
      await page.waitForURL(at(path));
      await tour.look(page);
      await expectNoSidewaysScroll(page);
    }
    await keepScreenshot(page, "example-home-390px.png");
  });

  // The whole life of a password account is tests/browser/password.test.ts; here, the links.
  test("password accounts: Change password asks to sign in first and refuses an account without a password; Create an account opens the sign-up page", async () => {
    const page = await newPage();
    await open(page);
    await tour.click(page, "home-change-password");
    await page.waitForURL(at("/change-password"));
    await tour.click(page, "change-password-sign-in");
    await onSignInPage(page, "/change-password");
    await submitPassword(page);
    await page.waitForURL(at("/change-password"));
    // The demo account signs in through Credentials: no password account to change.
    await page.getByTestId("change-password-current").fill(DEMO_ACCOUNT.password);
    await page.getByTestId("change-password-new").fill("an entirely new demo passphrase");
    await tour.click(page, "change-password-submit");
    await expect
      .poll(() => page.getByTestId("change-password-message").textContent())
      .toBe("This account has no password to change.");
    await tour.click(page, "nav-home");
    await tour.click(page, "sign-out");
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
    await tour.click(page, "home-sign-up");
    await page.waitForURL((url) => url.pathname === "/api/auth/signup/password");
    expect(await page.locator("h1").textContent()).toBe("Sign up");
  });

  // Changing the address end to end is tests/browser/password-email.test.ts; here, the page.
  test("Account asks to sign in first, then refuses the account's own address as the new one; its Password page refuses to remove a password the account lacks", async () => {
    const page = await newPage();
    await open(page);
    await tour.click(page, "home-account");
    await page.waitForURL(at("/account"));
    await tour.click(page, "account-sign-in");
    await onSignInPage(page, "/account");
    await submitPassword(page);
    await page.waitForURL(at("/account"));
    expect(await page.getByTestId("account-email").textContent()).toBe(DEMO_ACCOUNT.email);
    // Its passkeys, added by the tests above, are listed; its proven address is another way in,
    // so one can be removed (the rules are tests/browser/passkeys-remove.test.ts).
    const passkeys = page.getByTestId("passkey-row");
    await expect.poll(() => passkeys.count()).toBeGreaterThan(0);
    for (let left = await passkeys.count(); left > 0; left--) {
      await tour.click(page, "passkey-remove");
      await expect.poll(() => passkeys.count()).toBe(left - 1);
    }
    // None left: the page offers to add one on the profile page, and the way back is the menu.
    await tour.click(page, "passkeys-add");
    await page.waitForURL(at("/profile"));
    await tour.click(page, "nav-home");
    await tour.click(page, "home-account");
    await page.waitForURL(at("/account"));
    // The demo account has no password: a fresh sign-in is its proof, and the field stays empty.
    await page.getByTestId("account-new-email").fill(DEMO_ACCOUNT.email);
    await tour.click(page, "account-change-email");
    await expect
      .poll(() => page.getByTestId("account-message").textContent())
      .toBe("This is already your account's address.");
    // Its "Password" page (setting and removing end to end is tests/browser/password-set.test.ts):
    // the demo account signs in through Credentials, so the Password provider has no password of
    // its to remove, and a short one is refused by the policy.
    await tour.click(page, "account-password");
    await page.waitForURL(at("/password"));
    expect(await page.getByTestId("password-email").textContent()).toBe(DEMO_ACCOUNT.email);
    await page.getByTestId("password-current").fill(DEMO_ACCOUNT.password);
    await tour.click(page, "password-remove");
    await expect
      .poll(() => page.getByTestId("password-message").textContent())
      .toBe("This account has no password to remove.");
    await page.getByTestId("password-new").fill("short");
    await tour.click(page, "password-set");
    await expect
      .poll(() => page.getByTestId("password-message").textContent())
      .toMatch(/^Use at least \d+ characters/);
    // Its two-factor link opens the built-in settings page (the whole of two-factor sign-in is
    // tests/browser/two-factor.test.ts); the home page's address, typed, comes back.
    await tour.click(page, "nav-home");
    await tour.click(page, "home-account");
    await page.waitForURL(at("/account"));
    await tour.click(page, "account-two-factor");
    await page.waitForURL(at("/api/auth/two-factor"));
    expect(await page.locator("h1").textContent()).toBe("Two-factor sign-in");
    expect(await page.locator('button:has-text("Set up two-factor sign-in")').count()).toBe(1);
    await open(page);
    await tour.click(page, "sign-out");
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
  });

  test("an unknown page says so and leads home", async () => {
    const page = await newPage();
    const answer = await page.goto(at("/no-such-page"));
    expect(answer?.status()).toBe(404);
    await tour.click(page, "not-found-home");
    await page.waitForURL(home());
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
  });

  // Last: the tests above ran in order and recorded what they saw and clicked.
  test("every link and button the demo showed was clicked by a test", () => {
    expect(tour.seen.size).toBeGreaterThan(20);
    expect(tour.unclicked()).toEqual([]);
  });
});
