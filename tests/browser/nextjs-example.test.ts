/**
 * The Next.js example (examples/nextjs) in real Chromium, used as a person uses it: each test
 * opens the home page once, then reaches every page by clicking what the pages show (the demo's
 * links and buttons, its own sign-in page's Server Action forms, the built-in pages, the local
 * OpenID provider's login form, the mailbox of the SMTP capture). The app is built once (its hash
 * stamp skips the build when nothing changed) and served by `next start` in demo mode on free
 * ports; the last test checks that every link and button the demo showed was clicked.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildLog, ensureBuilt, isBuilt } from "../../examples/nextjs/scripts/build.mjs";
import { DEMO_ACCOUNT, type Demo, startDemo } from "../../examples/nextjs/scripts/demo.mjs";
import { freePort } from "../support/free-port.js";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { freshDataDir, removeDataDir } from "./example-app.js";
import { Tour } from "./tour.js";

describe.skipIf(!chromiumPath)("the Next.js example in Chromium", { timeout: 90_000 }, () => {
  let app: Demo;
  let dataDir: string;
  let browser: Browser;
  let tour: Tour;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dataDir = freshDataDir("nextjs-example");
    const starting = (async () => {
      await ensureBuilt();
      return startDemo({
        port: await freePort(),
        smtpPort: 0,
        oidcPort: 0,
        dataDir,
        output: "pipe",
        // The developer's own settings (a real SMTP server, OpenID issuer or database) are
        // ignored: the test runs offline, on a fresh PGlite folder.
        env: {
          AUTH_SECRET: randomBytes(32).toString("base64url"),
          AUTH_URL: undefined,
          EMAIL_SERVER: undefined,
          AUTH_NODEMAILER_SERVER: undefined,
          AUTH_OIDC_ISSUER: undefined,
          AUTH_OIDC_ID: undefined,
          AUTH_OIDC_SECRET: undefined,
          DATABASE_URL: undefined,
          PGLITE_DIR: undefined,
          HOST: undefined,
        },
      });
    })();
    [app, browser] = await Promise.all([starting, launch()]);
    tour = new Tour(new URL(app.url).origin);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (dataDir) removeDataDir(dataDir);
  });

  /** A fresh browser profile (no cookies), optionally with a virtual passkey authenticator. */
  async function newPage(options: { authenticator?: boolean; width?: number } = {}): Promise<Page> {
    const context = await browser.newContext(
      options.width ? { viewport: { width: options.width, height: 844 } } : {},
    );
    contexts.push(context);
    const page = await context.newPage();
    if (options.authenticator) await addVirtualAuthenticator(context, page);
    watchConsole(page);
    context.on("page", watchConsole);
    return page;
  }

  /**
   * What the app's pages logged as errors or warnings (a hydration mismatch, a React warning).
   * The browser's own line for an answer it was meant to get (a 404 page, the 401 of the sessions
   * list signed out) is not the app's.
   */
  const logged: string[] = [];
  function watchConsole(page: Page): void {
    page.on("console", (message) => {
      if (!["error", "warning"].includes(message.type())) return;
      if (message.text().startsWith("Failed to load resource")) return;
      if (!page.url().startsWith(app.url)) return;
      logged.push(`${page.url()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => logged.push(`${page.url()}: ${error.message}`));
  }

  const home = () => `${app.url}/`;
  const at = (path: string) => `${app.url}${path}`;
  const status = (page: Page) => page.getByTestId("session-status");
  const signedOutText = "You are not signed in.";

  /** The address a test types first. */
  async function open(page: Page): Promise<void> {
    await page.goto(home());
    await tour.look(page);
  }

  async function expectSignedInAs(page: Page, name: string): Promise<void> {
    await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${name}`);
  }

  async function expectSignedOut(page: Page): Promise<void> {
    await expect.poll(() => status(page).textContent()).toBe(signedOutText);
  }

  /** Waits for a page of the app (client navigation or not), hydrated. */
  async function onPage(page: Page, path: string): Promise<void> {
    await page.waitForURL((url) => url.pathname === path);
    await tour.look(page);
  }

  /** Waits for the app's own sign-in page, asked to come back to `callbackPath`. */
  async function onLogin(page: Page, callbackPath: string): Promise<void> {
    await page.waitForURL(
      (url) =>
        url.pathname === "/login" && (url.searchParams.get("callbackUrl") ?? "/") === callbackPath,
    );
    await tour.look(page);
  }

  /** On the app's sign-in page: the Server Action's email and password form. */
  async function submitLogin(
    page: Page,
    email = DEMO_ACCOUNT.email,
    password = DEMO_ACCOUNT.password,
  ): Promise<void> {
    await page.getByTestId("login-email").fill(email);
    await page.getByTestId("login-password").fill(password);
    await tour.click(page, "login-password-submit");
  }

  /** From a page showing the link `testId` to /login: the password, then back to `back`. */
  async function signInWithPassword(
    page: Page,
    testId = "sign-in-link",
    back = "/",
  ): Promise<void> {
    await tour.click(page, testId);
    await onLogin(page, back);
    await submitLogin(page);
    await onPage(page, back);
  }

  /** The built-in sign-in page of the auth route, asked to come back to `callbackPath`. */
  async function onBuiltInSignIn(page: Page, callbackPath: string): Promise<void> {
    await page.waitForURL(
      (url) =>
        url.pathname === "/api/auth/signin" &&
        new URL(url.searchParams.get("callbackUrl") ?? "", app.url).pathname === callbackPath,
    );
  }

  /** From the home page: the mailbox, refreshed until a message to `address` is there. */
  async function openMailbox(page: Page, address: string, messages = 1) {
    await tour.click(page, "demo-mailbox-link");
    await onPage(page, "/dev/mailbox");
    const mail = page.getByTestId("mailbox-message").filter({ hasText: address });
    await expect
      .poll(async () => {
        await tour.click(page, "mailbox-refresh");
        await onPage(page, "/dev/mailbox");
        return mail.count();
      })
      .toBe(messages);
    // Newest first.
    return mail.first();
  }

  test("the build is clean, and demo mode offers every sign-in method", async () => {
    const log = readFileSync(buildLog, "utf8");
    expect(log).not.toMatch(/warning/i);
    // The stamp matches the sources: a second start builds nothing.
    expect(isBuilt()).toBe(true);
    expect(await ensureBuilt()).toBe(false);
    const page = await newPage();
    await open(page);
    await expectSignedOut(page);
    expect(await page.getByTestId("demo-email").textContent()).toBe(DEMO_ACCOUNT.email);
    expect(await page.getByTestId("demo-password").textContent()).toBe(DEMO_ACCOUNT.password);
    const providers = await (await page.request.get(at("/api/auth/providers"))).json();
    expect(Object.keys(providers).sort()).toEqual(["credentials", "nodemailer", "oidc", "passkey"]);
  });

  test("signed out, the proxy sends the protected page to the sign-in page and back; the Server Component page to the app's own sign-in page and back", async () => {
    const page = await newPage();
    await open(page);
    // The proxy answers before any page renders: a redirect, no HTML.
    const answer = await page.request.get(at("/protected"), { maxRedirects: 0 });
    expect(answer.status()).toBe(302);
    const location = new URL(answer.headers().location ?? "", app.url);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/protected");

    // Through the proxy: the built-in sign-in page, then back to the protected page.
    await tour.click(page, "nav-protected");
    await onBuiltInSignIn(page, "/protected");
    await page.fill("#input-email-for-credentials-provider", DEMO_ACCOUNT.email);
    await page.fill("#input-password-for-credentials-provider", DEMO_ACCOUNT.password);
    await Promise.all([
      page.waitForURL(at("/protected")),
      page.click('button:has-text("Sign in with Email and password")'),
    ]);
    await tour.look(page);
    await expect.poll(() => page.getByTestId("protected-name").textContent()).toBe("Demo User");

    // The Server Component page reads the same session with auth(), and signs out by a form.
    await tour.click(page, "nav-server");
    await onPage(page, "/server");
    await expect.poll(() => page.getByTestId("server-name").textContent()).toBe("Demo User");
    expect(await page.getByTestId("server-email").textContent()).toBe(DEMO_ACCOUNT.email);
    await tour.click(page, "server-sign-out");
    await onPage(page, "/");
    await expectSignedOut(page);
    const cookies = await page.context().cookies();
    expect(cookies.filter((cookie) => cookie.name.endsWith("session-token"))).toEqual([]);

    // Signed out, the Server Component page sends to /login; a wrong password is refused there.
    await tour.click(page, "home-server");
    await onLogin(page, "/server");
    await submitLogin(page, DEMO_ACCOUNT.email, "not-the-password");
    await expect
      .poll(() => page.getByTestId("login-error").textContent())
      .toBe("Wrong email or password.");
    await onLogin(page, "/server");
    await submitLogin(page);
    await onPage(page, "/server");
    await expect.poll(() => page.getByTestId("server-name").textContent()).toBe("Demo User");

    // Signed in, the proxy lets the client navigation through.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await expectSignedInAs(page, "Demo User");
    expect(await page.getByTestId("session-email").textContent()).toBe(DEMO_ACCOUNT.email);
    await tour.click(page, "home-protected");
    await onPage(page, "/protected");
    await expect.poll(() => page.getByTestId("protected-name").textContent()).toBe("Demo User");
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
  });

  test("credentials from the home page: profile update, sessions and activity, sign-out", async () => {
    const page = await newPage();
    await open(page);
    await signInWithPassword(page);
    await expectSignedInAs(page, "Demo User");
    await page.reload();
    await expectSignedInAs(page, "Demo User");

    await tour.click(page, "home-profile");
    await onPage(page, "/profile");
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");
    const posted = page.waitForRequest(
      (request) => request.method() === "POST" && request.url() === at("/api/auth/session"),
    );
    await page.getByTestId("profile-name-input").fill("Renamed Reader");
    await tour.click(page, "profile-save");
    await posted;
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Renamed Reader");
    await expect
      .poll(() => page.getByTestId("profile-message").textContent())
      .toBe("Saved in your session.");

    // The server reads the renamed session too: the home page and the Server Component page.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await expectSignedInAs(page, "Renamed Reader");
    await page.reload();
    await expectSignedInAs(page, "Renamed Reader");
    await tour.click(page, "nav-server");
    await onPage(page, "/server");
    await expect.poll(() => page.getByTestId("server-name").textContent()).toBe("Renamed Reader");

    await tour.click(page, "nav-sessions");
    await onPage(page, "/sessions");
    const current = page.locator(
      '[data-testid="session-row"]:has([data-testid="session-current"])',
    );
    await expect.poll(() => current.count()).toBe(1);
    expect(await current.getByTestId("session-details").textContent()).toMatch(
      /^Signed in with Email and password on .*; active now/,
    );
    expect(await page.locator("main").textContent()).not.toMatch(/GMT/);

    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "home-activity");
    await onPage(page, "/activity");
    const signIns = page.locator('[data-testid="activity-row"][data-type="signIn"]');
    await expect.poll(() => signIns.count()).toBeGreaterThan(0);
    expect(await signIns.first().textContent()).toContain("with Email and password");
    // The failed attempt of the test before belongs to the demo account too.
    expect(
      await page.locator('[data-testid="activity-row"][data-type="signInFailed"]').count(),
    ).toBeGreaterThan(0);

    await tour.click(page, "nav-activity");
    await onPage(page, "/activity");
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
    await page.reload();
    await expectSignedOut(page);
  });

  test("email: the link from the mailbox signs in, then the code from the mailbox, typed on the check-your-email page", async () => {
    const page = await newPage();
    const address = `reader-${Date.now()}@example.com`;
    await open(page);

    /** The app's sign-in page, the email form, and the "check your email" page. */
    async function askForEmail(): Promise<void> {
      await tour.click(page, "sign-in-link");
      await onLogin(page, "/");
      await page.getByTestId("login-link-email").fill(address);
      await tour.click(page, "login-link-submit");
      await page.waitForURL((url) => url.pathname === "/api/auth/verify-request");
    }

    await askForEmail();
    // The person goes back to the demo and opens its mailbox.
    await open(page);
    const message = await openMailbox(page, address);
    const link = message.getByTestId("mailbox-link");
    expect(new URL((await link.getAttribute("href")) ?? "").pathname).toBe(
      "/api/auth/callback/nodemailer",
    );
    await link.click();
    tour.clicked.add("mailbox-link");
    // Scanner-safe links: the link opens a page whose one button signs in.
    await Promise.all([
      page.waitForURL(home()),
      page.click(`button:has-text("Sign in as ${address}")`),
    ]);
    await expectSignedInAs(page, address);
    await tour.click(page, "sign-out");
    await expectSignedOut(page);

    // Now the code: asked for here, read in the mailbox in another tab, typed here.
    await askForEmail();
    const mailTab = await page.context().newPage();
    await open(mailTab);
    const second = await openMailbox(mailTab, address, 2);
    const code = (await second.getByTestId("mailbox-code").textContent()) ?? "";
    expect(code).toMatch(/\S{6,}/);
    await mailTab.close();
    await page.locator('input[name="code"]').fill(code);
    await Promise.all([
      page.waitForURL(home()),
      page.click('button:has-text("Sign in with code")'),
    ]);
    await expectSignedInAs(page, address);
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
  });

  test("OpenID Connect: the app's button, the provider's login form, and back signed in", async () => {
    const page = await newPage();
    const address = `olivia-${Date.now()}@example.com`;
    await open(page);
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await Promise.all([
      page.waitForURL((url) => url.origin === app.services.oidc),
      tour.click(page, "login-oidc"),
    ]);
    await page.getByTestId("oidc-name").fill("Olivia Browser");
    await page.getByTestId("oidc-email").fill(address);
    await page.getByTestId("oidc-submit").click();
    await page.waitForURL(home());
    await expectSignedInAs(page, "Olivia Browser");
    expect(await page.getByTestId("session-email").textContent()).toBe(address);
    await tour.click(page, "home-sessions");
    await onPage(page, "/sessions");
    await expect
      .poll(() => page.getByTestId("session-details").first().textContent())
      .toMatch(/^Signed in with Gatehouse Demo ID on /);
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
  });

  test("passkeys: add one on the profile page, then sign in with it from the sign-in page, the home page and the built-in page", async () => {
    const page = await newPage({ authenticator: true });
    await open(page);
    await signInWithPassword(page);
    await tour.click(page, "nav-profile");
    await onPage(page, "/profile");
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");
    await tour.click(page, "passkey-add");
    await expect
      .poll(() => page.getByTestId("passkey-message").textContent())
      .toBe("Passkey added: next time, sign in with it.");
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");

    // A new browser session on the same authenticator: no cookies, no password.
    await page.context().clearCookies();
    await page.reload();
    await expect.poll(() => page.getByTestId("profile-signed-out").count()).toBe(1);
    await tour.click(page, "profile-sign-in");
    await onLogin(page, "/profile");
    await tour.click(page, "passkey-sign-in");
    await onPage(page, "/profile");
    await expect.poll(() => page.getByTestId("profile-name").textContent()).toBe("Demo User");

    // The home page's own passkey button.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
    await tour.click(page, "passkey-sign-in");
    await expectSignedInAs(page, "Demo User");
    await tour.click(page, "sign-out");
    await expectSignedOut(page);

    // The built-in page, linked from the app's sign-in page.
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await tour.click(page, "login-built-in");
    await onBuiltInSignIn(page, "/");
    await Promise.all([page.waitForURL(home()), page.click("#submitButton-passkey")]);
    await expectSignedInAs(page, "Demo User");
    await tour.click(page, "home-sessions");
    await onPage(page, "/sessions");
    await expect
      .poll(() => page.getByTestId("session-details").first().textContent())
      .toMatch(/^Signed in with Passkey on /);
  });

  test("your sessions: end one from another browser, then sign out everywhere else", async () => {
    const first = await newPage();
    const second = await newPage();
    for (const page of [first, second]) {
      await open(page);
      await signInWithPassword(page);
      await expectSignedInAs(page, "Demo User");
    }
    await tour.click(first, "nav-sessions");
    await onPage(first, "/sessions");
    const rows = first.getByTestId("session-row");
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    const count = await rows.count();
    await tour.click(first, "session-revoke");
    await expect
      .poll(() => first.getByTestId("sessions-message").textContent())
      .toBe("Ended 1 session.");
    await expect.poll(() => rows.count()).toBe(count - 1);
    await tour.click(first, "sessions-revoke-others");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await first.getByTestId("session-current").count()).toBe(1);

    // The second browser was among the others: its next request finds it signed out, and the
    // sessions page offers to sign in.
    await second.reload();
    await expectSignedOut(second);
    await tour.click(second, "nav-sessions");
    await onPage(second, "/sessions");
    await expect.poll(() => second.getByTestId("sessions-signed-out").count()).toBe(1);
    // "Sign out everywhere else" ends every session issued in its second or before.
    await new Promise((resolve) => setTimeout(resolve, 1050 - (Date.now() % 1000)));
    await signInWithPassword(second, "sessions-sign-in", "/sessions");
    await expect.poll(() => second.getByTestId("session-row").count()).toBe(2);
  });

  test("on a 390 px wide screen, no page scrolls sideways", async () => {
    const page = await newPage({ width: 390 });
    /** The page is no wider than the screen: nothing to scroll sideways. */
    async function expectNoSidewaysScroll(): Promise<void> {
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll, `${page.url()} is ${scroll}px wide`).toBeLessThanOrEqual(client);
    }
    await open(page);
    await expectNoSidewaysScroll();
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await expectNoSidewaysScroll();
    await submitLogin(page);
    await onPage(page, "/");
    await expectSignedInAs(page, "Demo User");
    for (const [link, path] of [
      ["nav-protected", "/protected"],
      ["nav-server", "/server"],
      ["nav-profile", "/profile"],
      ["nav-sessions", "/sessions"],
      ["nav-activity", "/activity"],
      ["nav-home", "/"],
    ] as const) {
      await tour.click(page, link);
      await onPage(page, path);
      await expectNoSidewaysScroll();
    }
    await tour.click(page, "demo-mailbox-link");
    await onPage(page, "/dev/mailbox");
    await expectNoSidewaysScroll();
  });

  test("an unknown page says so and leads home", async () => {
    const page = await newPage();
    const answer = await page.goto(at("/no-such-page"));
    expect(answer?.status()).toBe(404);
    await tour.click(page, "not-found-home");
    await onPage(page, "/");
    await expectSignedOut(page);
  });

  // Last: the tests above ran in order and recorded what they saw and clicked.
  test("every link and button the demo showed was clicked by a test, and no page logged an error", () => {
    expect(tour.seen.size).toBeGreaterThan(20);
    expect(tour.unclicked()).toEqual([]);
    expect(logged).toEqual([]);
  });
});
