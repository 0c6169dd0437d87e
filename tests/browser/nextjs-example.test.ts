/**
 * The Next.js example (examples/nextjs) in real Chromium, used as a person uses it: each test
 * opens the home page once, then reaches every page by clicking what the pages show (the demo's
 * links and buttons, its own sign-in page's Server Action forms, the built-in pages, the local
 * OpenID provider's login form, the mailbox of the SMTP capture; a mailed link is opened in the
 * browser as a mail program hands it over). The app is built once (its hash stamp skips the build
 * when nothing changed) and served by `next start` in demo mode on free ports, its OpenID
 * provider's access tokens living 30 s so that the provider-token page renews them; the last test
 * checks that every link and button the demo showed was clicked.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildLog, ensureBuilt, isBuilt } from "../../examples/nextjs/scripts/build.mjs";
import { DEMO_ACCOUNT, type Demo, startDemo } from "../../examples/nextjs/scripts/demo.mjs";
import { totpCode, totpStep } from "../../packages/core/src/lib/features/two-factor/totp.js";
import { freePort } from "../support/free-port.js";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { freshDataDir, removeDataDir } from "./example-app.js";
import * as mailbox from "./mailbox.js";
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
        oidcAccessTokenTtl: 30,
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
    expect(Object.keys(providers).sort()).toEqual([
      "credentials",
      "nodemailer",
      "oidc",
      "passkey",
      "password",
    ]);
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

  /** The built-in pages' field of the Password provider. */
  const accountField = (name: string) => `#input-${name}-for-password-provider`;
  const onPath = (path: string) => (url: URL) => url.pathname === path;
  const heading = (page: Page) => page.locator("h1").textContent();

  /** The link on `route` of the Password provider in the newest matching message to `to`. */
  const mailedLink = (to: string, subject: RegExp, route: string) =>
    mailbox.mailedLink(app.mailboxDir, to, subject, `/api/auth/${route}/password`);

  /** What the app's session endpoint answers this browser: a user, or nobody. */
  async function sessionUser(page: Page): Promise<unknown> {
    const body = (await (await page.request.get(at("/api/auth/session"))).json()) as {
      user?: unknown;
    } | null;
    return body?.user ?? null;
  }

  /**
   * On the built-in sign-up page (reached by `link` from the page shown): the address and the
   * password, then the confirmation link from the mail, opened in this browser; signed in, home.
   */
  async function signUp(page: Page, link: string, email: string, password: string) {
    await tour.click(page, link);
    await page.waitForURL(onPath("/api/auth/signup/password"));
    await page.fill(accountField("email"), email);
    await page.fill(accountField("password"), password);
    await Promise.all([
      page.waitForURL(onPath("/api/auth/verify-email/password")),
      page.click('button:has-text("Sign up")'),
    ]);
    expect(await heading(page)).toBe("Check your email");
    await page.goto(await mailedLink(email, /^Confirm your email address/, "verify-email"));
    await Promise.all([
      page.waitForURL(home()),
      page.click('button:has-text("Confirm and sign in")'),
    ]);
    await tour.look(page);
    await expectSignedInAs(page, email);
  }

  /** From the home page, signed out: /login, the password account's form, submitted. */
  async function submitAccount(page: Page, email: string, password: string): Promise<void> {
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await page.getByTestId("login-account-email").fill(email);
    await page.getByTestId("login-account-password").fill(password);
    await tour.click(page, "login-account-submit");
  }

  /** From the home page, signed in: "Sign out". */
  async function signOut(page: Page): Promise<void> {
    await tour.click(page, "sign-out");
    await expectSignedOut(page);
  }

  test("password accounts: sign up and confirm by mail, reset a forgotten password from the mail, change it; on the account page, remove it, set one, and ask to move the address", {
    timeout: 180_000,
  }, async () => {
    const email = `ada-${Date.now()}@example.com`;
    const chosen = "violet kettle drums at noon";
    const reset = "seven quiet lanterns over water";
    const changed = "a brass compass for the north";
    const again = "the lighthouse keeper sleeps late";
    const page = await newPage();
    await open(page);
    await expectSignedOut(page);
    await signUp(page, "home-sign-up", email, chosen);
    expect(await page.getByTestId("session-method").textContent()).toBe("Password account");

    // A second browser signs in to the account on the app's sign-in page.
    const other = await newPage();
    await open(other);
    await submitAccount(other, email, chosen);
    await onPage(other, "/");
    await expectSignedInAs(other, email);

    // The first signs out and has forgotten its password: /login's "Forgot your password?".
    await signOut(page);
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await tour.click(page, "login-forgot-password");
    await page.waitForURL(onPath("/api/auth/forgot-password/password"));
    await page.fill(accountField("email"), email);
    await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Send the link")')]);
    expect(await heading(page)).toBe("Check your email");
    await page.goto(await mailedLink(email, /^Reset your password/, "reset-password"));
    await page.fill(accountField("password"), reset);
    await Promise.all([
      page.waitForURL(home()),
      page.click('button:has-text("Set password and sign in")'),
    ]);
    await tour.look(page);
    await expectSignedInAs(page, email);

    // The reset ended every other session: the second browser is signed out.
    await other.reload();
    await expectSignedOut(other);

    // "Change password" from the home page: the current password, a new one.
    await tour.click(page, "home-change-password");
    await onPage(page, "/change-password");
    await expect.poll(() => page.getByTestId("change-password-email").textContent()).toBe(email);
    await page.getByTestId("change-password-current").fill("not the password at all");
    await page.getByTestId("change-password-new").fill(changed);
    await tour.click(page, "change-password-submit");
    await expect
      .poll(() => page.getByTestId("change-password-message").textContent())
      .toBe("The current password is wrong.");
    await page.getByTestId("change-password-current").fill(reset);
    await page.getByTestId("change-password-new").fill(changed);
    await tour.click(page, "change-password-submit");
    await expect
      .poll(() => page.getByTestId("change-password-message").textContent())
      .toContain("Your password was changed");
    await expect
      .poll(async () => (await mailbox.mailTo(app.mailboxDir, email)).map((m) => m.subject))
      .toContainEqual(expect.stringMatching(/^Your password for .* was changed/));

    // Signed out, the password before the change is refused; the new one signs in.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await signOut(page);
    await submitAccount(page, email, reset);
    await onLogin(page, "/");
    await expect
      .poll(() => page.getByTestId("login-error").textContent())
      .toBe("Wrong email or password.");
    await page.getByTestId("login-account-email").fill(email);
    await page.getByTestId("login-account-password").fill(changed);
    await tour.click(page, "login-account-submit");
    await onPage(page, "/");
    await expectSignedInAs(page, email);

    // The account page: the password removed (the confirmed address still signs in by email),
    // then a new one set, which signs in.
    await tour.click(page, "home-account");
    await onPage(page, "/account");
    await expect.poll(() => page.getByTestId("account-email").textContent()).toBe(email);
    await page.getByTestId("account-password-current").fill(changed);
    await tour.click(page, "account-password-remove");
    await expect
      .poll(() => page.getByTestId("account-password-message").textContent())
      .toBe("Your password was removed, and every other browser was signed out.");
    await page.getByTestId("account-password-current").fill(changed);
    await tour.click(page, "account-password-remove");
    await expect
      .poll(() => page.getByTestId("account-password-message").textContent())
      .toBe("This account has no password to remove.");
    await page.getByTestId("account-password-new").fill(again);
    await tour.click(page, "account-password-set");
    await expect
      .poll(() => page.getByTestId("account-password-message").textContent())
      .toBe("Your account now also signs in with its address and this password.");

    // Moving the address: nothing changes until the link mailed to the new one is used.
    const moved = `ada-moved-${Date.now()}@example.com`;
    await page.getByTestId("account-new-email").fill(moved);
    await page.getByTestId("account-current-password").fill(again);
    await tour.click(page, "account-change-email");
    await expect
      .poll(() => page.getByTestId("account-email-message").textContent())
      .toBe("We sent a link to the new address: your address changes when it is used.");
    await mailbox.mailedLink(
      app.mailboxDir,
      moved,
      /^Confirm your new email address/,
      "/api/auth/change-email/password",
    );

    // The account page's link to the change-password page, then home: the set password signs in.
    await tour.click(page, "account-change-password");
    await onPage(page, "/change-password");
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await signOut(page);
    await submitAccount(page, email, again);
    await onPage(page, "/");
    await expectSignedInAs(page, email);
  });

  /**
   * The authenticator app: a code of a step after `lastUsed` (the server accepts no step twice)
   * and within one step of now, waiting for the clock when it must.
   */
  async function nextCode(secret: string, lastUsed: number) {
    while (totpStep(Date.now()) <= lastUsed) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const step = totpStep(Date.now());
    return { code: await totpCode(secret, step), step };
  }

  /** The two-factor page's backup codes, as shown once; "I saved them" hides them. */
  async function keepBackupCodes(page: Page): Promise<string[]> {
    const list = page.getByTestId("two-factor-backup-codes").locator("code");
    await expect.poll(() => list.count()).toBe(10);
    const codes = await list.allTextContents();
    expect(new Set(codes).size).toBe(10);
    await tour.click(page, "two-factor-saved");
    await expect.poll(() => page.getByTestId("two-factor-on").count()).toBe(1);
    return codes;
  }

  const backupCodesLeft = async (page: Page) =>
    Number(await page.getByTestId("two-factor-backup-codes-left").getAttribute("data-count"));

  /** On the built-in challenge page: a backup code, optionally trusting the browser; home. */
  async function answerWithBackupCode(page: Page, code: string, trust = false) {
    await page.fill("#two-factor-backup-code", code);
    if (trust) await page.check("#two-factor-trust-backup");
    await Promise.all([
      page.waitForEvent("load"),
      page.click('button:has-text("Use the backup code")'),
    ]);
  }

  test("two-factor sign-in: set up on the app's page with the key it shows, backup codes, a sign-in with the password and a code, trusted browsers forgotten, turned off", {
    timeout: 240_000,
  }, async () => {
    const email = `hedy-${Date.now()}@example.com`;
    const password = "frequency hopping over the harbour";
    const page = await newPage();
    await open(page);
    // An account of its own, made from the app's sign-in page this time.
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    await signUp(page, "login-sign-up", email, password);

    // Account → two-factor: off, with one button to set it up.
    await tour.click(page, "nav-account");
    await onPage(page, "/account");
    await tour.click(page, "account-two-factor");
    await onPage(page, "/two-factor");
    await expect.poll(() => page.getByTestId("two-factor-off").count()).toBe(1);
    await tour.click(page, "two-factor-enroll");
    const secretShown = page.getByTestId("two-factor-secret");
    await expect.poll(() => secretShown.count()).toBe(1);
    const secret = (await secretShown.textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // The QR code is an image the browser drew from the server's SVG.
    await expect
      .poll(() =>
        page.getByTestId("two-factor-qr").evaluate((image: HTMLImageElement) => image.naturalWidth),
      )
      .toBeGreaterThan(0);

    // A wrong first code leaves it off; the app's code turns it on and shows the backup codes.
    const enrolStep = totpStep(Date.now());
    const enrolCode = await totpCode(secret, enrolStep);
    await page.getByTestId("two-factor-code").fill(enrolCode === "000000" ? "111111" : "000000");
    await tour.click(page, "two-factor-confirm");
    await expect
      .poll(() => page.getByTestId("two-factor-message").textContent())
      .toContain("That code is wrong");
    expect(await secretShown.textContent()).toBe(secret);
    await page.getByTestId("two-factor-code").fill(enrolCode);
    await tour.click(page, "two-factor-confirm");
    const firstCodes = await keepBackupCodes(page);
    expect(await backupCodesLeft(page)).toBe(10);
    expect(await page.getByTestId("trusted-browsers-none").count()).toBe(1);

    // New backup codes, with the app's next code: the first set stops working.
    const regenerated = await nextCode(secret, enrolStep);
    await page.getByTestId("two-factor-regenerate-code").fill(regenerated.code);
    await tour.click(page, "two-factor-regenerate");
    const codes = await keepBackupCodes(page);
    expect(codes.filter((code) => firstCodes.includes(code))).toEqual([]);

    // Signed out, the password alone opens no session: the challenge asks for a code. The app's
    // next code signs in, trusting this browser.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await signOut(page);
    await submitAccount(page, email, password);
    await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
    expect(await heading(page)).toBe("Two-factor sign-in");
    expect(await sessionUser(page)).toBeNull();
    const signInCode = await nextCode(secret, regenerated.step);
    await page.fill("#two-factor-code", signInCode.code);
    await page.check("#two-factor-trust");
    await Promise.all([page.waitForURL(home()), page.click('button:has-text("Verify")')]);
    await tour.look(page);
    await expectSignedInAs(page, email);

    // Trusted: signed out and in again with the password alone.
    await signOut(page);
    await submitAccount(page, email, password);
    await onPage(page, "/");
    await expectSignedInAs(page, email);

    // The page lists this browser; "Forget" ends its trust.
    await tour.click(page, "nav-two-factor");
    await onPage(page, "/two-factor");
    const trusted = page.getByTestId("trusted-browser-row");
    await expect.poll(() => trusted.count()).toBe(1);
    expect(await trusted.getByTestId("trusted-browser-current").count()).toBe(1);
    await tour.click(page, "trusted-browser-forget");
    await expect.poll(() => trusted.count()).toBe(0);
    expect(await page.getByTestId("trusted-browsers-none").count()).toBe(1);

    // Asked again: a backup code of the first set is refused, one of the new set signs in and
    // trusts the browser once more.
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await signOut(page);
    await submitAccount(page, email, password);
    await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
    await answerWithBackupCode(page, firstCodes[0] as string);
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("That backup code is wrong or was used already");
    expect(await sessionUser(page)).toBeNull();
    await answerWithBackupCode(page, codes[0] as string, true);
    await onPage(page, "/");
    await expectSignedInAs(page, email);

    // One backup code fewer; "Forget every browser" ends every trust.
    await tour.click(page, "nav-two-factor");
    await onPage(page, "/two-factor");
    await expect.poll(() => trusted.count()).toBe(1);
    expect(await backupCodesLeft(page)).toBe(9);
    await tour.click(page, "trusted-browsers-forget-all");
    await expect.poll(() => trusted.count()).toBe(0);

    // Turned off with a backup code; then the password alone signs in.
    await page.getByTestId("two-factor-disable-code").fill(codes[1] as string);
    await tour.click(page, "two-factor-disable");
    await expect
      .poll(() => page.getByTestId("two-factor-message").textContent())
      .toBe("Two-factor sign-in is off.");
    await expect.poll(() => page.getByTestId("two-factor-off").count()).toBe(1);
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await signOut(page);
    await submitAccount(page, email, password);
    await onPage(page, "/");
    await expectSignedInAs(page, email);
  });

  /**
   * From the home page, signed out: /login, "Sign in with Gatehouse Demo ID". `login`: the
   * provider must show its login form (no session there), filled in; otherwise it must not.
   */
  async function signInWithProvider(page: Page, name: string, address: string, login: boolean) {
    await tour.click(page, "sign-in-link");
    await onLogin(page, "/");
    const provider = new URL(app.services.oidc).origin;
    await Promise.all([
      page.waitForURL((url) => url.origin === provider || url.href === home()),
      tour.click(page, "login-oidc"),
    ]);
    expect(new URL(page.url()).origin === provider).toBe(login);
    if (login) {
      await page.getByTestId("oidc-name").fill(name);
      await page.getByTestId("oidc-email").fill(address);
      await page.getByTestId("oidc-submit").click();
      await page.waitForURL(home());
    }
    await tour.look(page);
    await expectSignedInAs(page, name);
  }

  /** The provider-token page's userinfo answer and the token's expiry, once shown. */
  async function readUserinfo(page: Page) {
    const shown = page.getByTestId("provider-userinfo");
    await expect.poll(() => shown.count()).toBe(1);
    return {
      userinfo: JSON.parse((await shown.textContent()) ?? "null") as Record<string, unknown>,
      expiresAt: Date.parse((await shown.getAttribute("data-expires-at")) ?? ""),
    };
  }

  test("provider token: the OpenID provider's userinfo, its 30-second token renewed on each visit; signed in another way, the page offers the provider", {
    timeout: 120_000,
  }, async () => {
    const address = `olivia-token-${Date.now()}@example.com`;
    const page = await newPage();
    await open(page);
    await signInWithProvider(page, "Olivia Tokens", address, true);
    expect(await page.getByTestId("session-method").textContent()).toBe("Gatehouse Demo ID");

    await tour.click(page, "home-provider-token");
    await onPage(page, "/provider-token");
    const first = await readUserinfo(page);
    expect(first.userinfo).toMatchObject({ email: address, name: "Olivia Tokens" });
    expect(first.expiresAt).toBeGreaterThan(Date.now());
    // Each visit renews the token (it expires within the 60 s skew) with the latest, rotated
    // refresh token: a later expiry each time (a stale refresh token would revoke the grant).
    let previous = first.expiresAt;
    for (let visit = 0; visit < 2; visit++) {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await tour.click(page, "nav-home");
      await onPage(page, "/");
      await tour.click(page, "nav-provider-token");
      await onPage(page, "/provider-token");
      const next = await readUserinfo(page);
      expect(next.userinfo).toEqual(first.userinfo);
      expect(next.expiresAt).toBeGreaterThan(previous);
      previous = next.expiresAt;
    }
    expect(await page.content()).not.toMatch(/access_token|refresh_token/i);

    // Signed in with the demo account in another browser: no provider account, so the page
    // offers to sign in with the provider (a new identity there, linked to the signed-in
    // account), and comes back showing its answer.
    const other = await newPage();
    await open(other);
    await signInWithPassword(other);
    await tour.click(other, "nav-provider-token");
    await onPage(other, "/provider-token");
    await expect.poll(() => other.getByTestId("provider-token-sign-in").count()).toBe(1);
    await Promise.all([
      other.waitForURL((url) => url.origin === new URL(app.services.oidc).origin),
      tour.click(other, "provider-token-sign-in-oidc"),
    ]);
    const linked = `demo-at-provider-${Date.now()}@example.com`;
    await other.getByTestId("oidc-name").fill("Demo At Provider");
    await other.getByTestId("oidc-email").fill(linked);
    await other.getByTestId("oidc-submit").click();
    await onPage(other, "/provider-token");
    expect((await readUserinfo(other)).userinfo).toMatchObject({ email: linked });
  });

  test("federated sign-out ends the OpenID provider's session too; a plain sign-out does not", async () => {
    const address = `olivia-logout-${Date.now()}@example.com`;
    const page = await newPage();
    await open(page);
    await signInWithProvider(page, "Olivia Leaves", address, true);

    // A plain sign-out: the provider still knows the browser and signs it straight back in.
    await signOut(page);
    await signInWithProvider(page, "Olivia Leaves", address, false);

    // Federated: the provider's end-session page, with the hint, the client and the way back.
    const provider = new URL(app.services.oidc).origin;
    await Promise.all([
      page.waitForURL((url) => url.origin === provider),
      tour.click(page, "sign-out-federated"),
    ]);
    const endSession = new URL(page.url());
    expect(endSession.pathname).toBe("/session/end");
    expect(endSession.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(home());
    // The app's session is gone before the provider answers.
    expect(await sessionUser(page)).toBeNull();
    await Promise.all([page.waitForURL(home()), page.getByTestId("oidc-logout").click()]);
    await tour.look(page);
    await expectSignedOut(page);

    // The provider forgot the browser: it asks for a login again.
    await signInWithProvider(page, "Olivia Leaves", address, true);
    // A password sign-in has no provider to sign out of: no federated button.
    const other = await newPage();
    await open(other);
    await signInWithPassword(other);
    expect(await other.getByTestId("sign-out-federated").count()).toBe(0);
  });

  test("signed out, the account, change-password, two-factor and provider-token pages lead to the sign-in page and back", async () => {
    const page = await newPage();
    await open(page);
    for (const [link, path, signIn, shown] of [
      ["nav-account", "/account", "account-sign-in", "account-email"],
      ["nav-two-factor", "/two-factor", "two-factor-sign-in", "two-factor-off"],
      [
        "home-change-password",
        "/change-password",
        "change-password-sign-in",
        "change-password-email",
      ],
    ] as const) {
      await tour.click(page, link);
      await onPage(page, path);
      await tour.click(page, signIn);
      await onLogin(page, path);
      await submitLogin(page);
      await onPage(page, path);
      await expect.poll(() => page.getByTestId(shown).count()).toBe(1);
      await tour.click(page, "nav-home");
      await onPage(page, "/");
      await signOut(page);
    }
    // The provider-token page is a Server Component: signed out, it sends to /login itself.
    await tour.click(page, "nav-provider-token");
    await onLogin(page, "/provider-token");
    await submitLogin(page);
    await onPage(page, "/provider-token");
    // The provider-token test linked an identity at the provider to the demo account.
    const { userinfo } = await readUserinfo(page);
    expect(String(userinfo.email)).toMatch(/^demo-at-provider-/);
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
      ["nav-account", "/account"],
      ["nav-two-factor", "/two-factor"],
      ["nav-provider-token", "/provider-token"],
      ["nav-home", "/"],
    ] as const) {
      await tour.click(page, link);
      await onPage(page, path);
      await expectNoSidewaysScroll();
    }
    await tour.click(page, "home-account");
    await onPage(page, "/account");
    await tour.click(page, "account-change-password");
    await onPage(page, "/change-password");
    await expectNoSidewaysScroll();
    await tour.click(page, "nav-home");
    await onPage(page, "/");
    await tour.click(page, "home-two-factor");
    await onPage(page, "/two-factor");
    await tour.click(page, "two-factor-enroll");
    await expect.poll(() => page.getByTestId("two-factor-secret").count()).toBe(1);
    await expectNoSidewaysScroll();
    await tour.click(page, "nav-home");
    await onPage(page, "/");
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
