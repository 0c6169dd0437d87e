/**
 * Email (magic link) sign-in through `Auth()` with nodemailer delivering to a real SMTP server
 * on 127.0.0.1: the verification-token and email-verification state tables of SPEC.md, the
 * message itself, the `signIn` callback, both session strategies, events and pages, secret
 * rotation, custom tokens and normalisers, the plain `Email()` provider, configuration and env.
 */
import { createHash } from "node:crypto";
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import Nodemailer, { type NodemailerOptions } from "@gatehousejs/core/providers/nodemailer";
import type { AuthConfig, EmailConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { followLink } from "./support/email-link.js";
import { expectOneFailure } from "./support/failures.js";
import {
  linkInHtml,
  linkInText,
  type ReceivedMessage,
  type SmtpInbox,
  startSmtpInbox,
} from "./support/smtp.js";

const FROM = "Gatehouse Test <login@example.com>";
const DAY = 24 * 60 * 60;

let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await startSmtpInbox();
});
afterAll(() => inbox.close());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

const sha256hex = (text: string) => createHash("sha256").update(text).digest("hex");

function recordingEvents() {
  return { signIn: vi.fn(), createUser: vi.fn(), updateUser: vi.fn(), linkAccount: vi.fn() };
}

/** A config with one Nodemailer provider (id "nodemailer") that delivers to the test inbox. */
function setup(overrides: Partial<AuthConfig> = {}, provider: NodemailerOptions = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const events = recordingEvents();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    events,
    providers: [Nodemailer({ server: inbox.server, from: FROM, ...provider })],
    ...overrides,
  };
  return { config, adapter, logger, events };
}

/** POST /signin/<provider> with a fresh CSRF token. */
async function requestLink(
  config: AuthConfig,
  jar: Jar,
  email: string,
  options: { extra?: Record<string, string>; origin?: string; provider?: string } = {},
): Promise<Response> {
  const token = await csrfToken(config, jar, options.origin);
  return send(config, jar, `/auth/signin/${options.provider ?? "nodemailer"}`, {
    form: { csrfToken: token, email, ...options.extra },
    origin: options.origin,
  });
}

/** Asks for a link, checks the verify-request redirect, and reads the delivered message. */
async function mailedLink(
  config: AuthConfig,
  email: string,
  options: { extra?: Record<string, string>; origin?: string } = {},
): Promise<{ link: URL; message: ReceivedMessage; jar: Jar }> {
  const jar = new Jar();
  const response = await requestLink(config, jar, email, options);
  expect(response.status).toBe(302);
  expect(locationOf(response)).toBe(
    `${options.origin ?? ORIGIN}/auth/verify-request?provider=nodemailer&type=email`,
  );
  const message = await inbox.next();
  return { link: linkInText(message), message, jar };
}

/** Follows a sign-in link through Auth(), as the browser that clicked it (and confirmed). */
function click(config: AuthConfig, jar: Jar, link: URL): Promise<Response> {
  return followLink(config, jar, link);
}

async function sessionOf(
  config: AuthConfig,
  jar: Jar,
): Promise<{ user?: { email?: string } } | null> {
  return (await send(config, jar, "/auth/session")).json();
}

/** The link with one query parameter replaced. */
function withParam(link: URL, name: string, value: string | null): URL {
  const copy = new URL(link);
  if (value === null) copy.searchParams.delete(name);
  else copy.searchParams.set(name, value);
  return copy;
}

const VERIFICATION = `${ORIGIN}/auth/error?error=Verification`;

async function expectVerification(config: AuthConfig, response: Response, jar: Jar) {
  expect(response.status).toBe(302);
  expect(locationOf(response)).toBe(VERIFICATION);
  const page = await send(config, jar, "/auth/error?error=Verification");
  expect(page.status).toBe(403);
  expect(await sessionOf(config, jar)).toBeNull();
}

/** The response's `Location`, as a normalised absolute URL (`http://host` and `http://host/` alike). */
function locationOf(response: Response): string | null {
  const location = response.headers.get("location");
  return location === null ? null : new URL(location, ORIGIN).href;
}

describe("verification token: issued", () => {
  test("only the SHA-256 of token + secret is stored, expiring after the default 24 hours", async () => {
    const { config, adapter } = setup();
    const created = vi.spyOn(adapter, "createVerificationToken");
    const before = Date.now();
    const { link } = await mailedLink(config, "alice@example.com");
    const after = Date.now();

    const token = link.searchParams.get("token")!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(link.searchParams.get("email")).toBe("alice@example.com");
    expect(created).toHaveBeenCalledTimes(1);
    const stored = created.mock.calls[0]![0];
    expect(stored.identifier).toBe("alice@example.com");
    expect(stored.token).toBe(sha256hex(token + SECRET));
    expect(stored.token).not.toBe(token);
    expect(stored.expires.valueOf()).toBeGreaterThanOrEqual(before + DAY * 1000);
    expect(stored.expires.valueOf()).toBeLessThanOrEqual(after + DAY * 1000);

    expect(adapter.rows.count().verificationTokens).toBe(1);
    expect(adapter.rows.verificationToken({ identifier: "alice@example.com", token })).toBeNull();
    expect(
      adapter.rows.verificationToken({ identifier: "alice@example.com", token: stored.token }),
    ).toEqual(stored);
  });

  test("a custom maxAge sets the expiry", async () => {
    const { config, adapter } = setup({}, { maxAge: 600 });
    const created = vi.spyOn(adapter, "createVerificationToken");
    const before = Date.now();
    await mailedLink(config, "alice@example.com");
    const expires = created.mock.calls[0]![0].expires.valueOf();
    expect(expires).toBeGreaterThanOrEqual(before + 600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  test("a provider secret is used instead of the config's", async () => {
    const { config, adapter } = setup({}, { secret: "provider-secret" });
    const created = vi.spyOn(adapter, "createVerificationToken");
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const token = link.searchParams.get("token")!;
    expect(created.mock.calls[0]![0].token).toBe(sha256hex(`${token}provider-secret`));
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
  });

  test("the verify-request page answers", async () => {
    const { config } = setup();
    const page = await send(
      config,
      new Jar(),
      "/auth/verify-request?provider=nodemailer&type=email",
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/check your email/i);
  });
});

describe("verification token: link clicked", () => {
  test("a matching click consumes the token and signs the user in", async () => {
    const { config, adapter } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const response = await click(config, jar, link);
    expect(response.status).toBe(302);
    expect(locationOf(response)).toBe(`${ORIGIN}/`);
    expect(adapter.rows.count().verificationTokens).toBe(0);
    expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
  });

  test("a wrong token is Verification, and the real link still works afterwards", async () => {
    const { config, adapter } = setup();
    const { link } = await mailedLink(config, "alice@example.com");
    const forged = withParam(link, "token", "0".repeat(64));
    const jar = new Jar();
    await expectVerification(config, await click(config, jar, forged), jar);
    expect(adapter.rows.count().verificationTokens).toBe(1);
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
  });

  test("a different email is Verification, and the real link still works afterwards", async () => {
    const { config, adapter } = setup();
    const { link } = await mailedLink(config, "alice@example.com");
    const jar = new Jar();
    await expectVerification(
      config,
      await click(config, jar, withParam(link, "email", "mallory@example.com")),
      jar,
    );
    expect(adapter.rows.count().verificationTokens).toBe(1);
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
  });

  test("an expired link is Verification; a minute before expiry it works", async () => {
    const { config } = setup();
    const first = await mailedLink(config, "alice@example.com");
    const second = await mailedLink(config, "bob@example.com");
    vi.useFakeTimers({ toFake: ["Date"] });

    vi.setSystemTime(Date.now() + (DAY - 60) * 1000);
    expect(locationOf(await click(config, first.jar, first.link))).toBe(`${ORIGIN}/`);

    vi.setSystemTime(Date.now() + 61 * 1000);
    await expectVerification(config, await click(config, second.jar, second.link), second.jar);
  });

  test("the link's parameters may also be POSTed to the callback (as Auth.js allows)", async () => {
    const { config } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const response = await send(config, jar, "/auth/callback/nodemailer", {
      form: { ...Object.fromEntries(link.searchParams), csrfToken: await csrfToken(config, jar) },
    });
    expect(locationOf(response)).toBe(`${ORIGIN}/`);
    expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
  });

  test("a link works once: the second click is Verification", async () => {
    const { config } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com");
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
    const other = new Jar();
    await expectVerification(config, await click(config, other, link), other);
  });
});

describe("email verification of the user", () => {
  test("the first sign-in creates the user with emailVerified = now and an email account", async () => {
    const { config, adapter, events } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const before = Date.now();
    await click(config, jar, link);
    const user = await adapter.getUserByEmail("alice@example.com");
    expect(user).not.toBeNull();
    expect(user!.emailVerified).toBeInstanceOf(Date);
    expect(user!.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before);
    expect(user!.emailVerified!.valueOf()).toBeLessThanOrEqual(Date.now());
    expect(events.createUser).toHaveBeenCalledTimes(1);
    expect(events.createUser.mock.calls[0]![0].user).toMatchObject({ email: "alice@example.com" });
    expect(events.updateUser).not.toHaveBeenCalled();
    expect(
      adapter.rows.account({ provider: "nodemailer", providerAccountId: "alice@example.com" }),
    ).toEqual({
      provider: "nodemailer",
      providerAccountId: "alice@example.com",
      type: "email",
      userId: user!.id,
    });
    expect(events.linkAccount).toHaveBeenCalledTimes(1);
  });

  test("an existing unverified user gets emailVerified on the first sign-in (updateUser event)", async () => {
    const { config, adapter, events } = setup();
    await adapter.createUser({
      id: "u-alice",
      email: "alice@example.com",
      emailVerified: null,
      name: "Alice",
    });
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const before = Date.now();
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
    const user = adapter.rows.user("u-alice")!;
    expect(user.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before);
    expect(user.name).toBe("Alice");
    expect(adapter.rows.count().users).toBe(1);
    expect(events.createUser).not.toHaveBeenCalled();
    expect(events.updateUser).toHaveBeenCalledTimes(1);
    expect(events.updateUser.mock.calls[0]![0].user).toMatchObject({ id: "u-alice" });
  });

  test("a second sign-in leaves emailVerified alone and links the account only once", async () => {
    const { config, adapter, events } = setup();
    const first = await mailedLink(config, "alice@example.com");
    await click(config, first.jar, first.link);
    const verified = (await adapter.getUserByEmail("alice@example.com"))!.emailVerified;

    const second = await mailedLink(config, "alice@example.com");
    expect(locationOf(await click(config, second.jar, second.link))).toBe(`${ORIGIN}/`);
    expect((await sessionOf(config, second.jar))?.user?.email).toBe("alice@example.com");
    expect((await adapter.getUserByEmail("alice@example.com"))!.emailVerified).toEqual(verified);
    expect(events.updateUser).not.toHaveBeenCalled();
    expect(events.createUser).toHaveBeenCalledTimes(1);
    expect(events.linkAccount).toHaveBeenCalledTimes(1);
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1, verificationTokens: 0 });
  });
});

describe("the message", () => {
  const origin = "https://auth.example.com";

  test("subject, sender, recipient, and the link in both the HTML and the text part", async () => {
    const { config } = setup();
    const { message, link } = await mailedLink(config, "Alice@Example.com", { origin });
    expect(message.subject).toBe("Sign in to auth.example.com");
    expect(message.from).toBe("login@example.com");
    expect(message.to).toEqual(["alice@example.com"]);
    expect(message.envelope).toEqual({ from: "login@example.com", to: ["alice@example.com"] });
    expect(link.origin).toBe(origin);
    expect(link.pathname).toBe("/auth/callback/nodemailer");
    expect(linkInHtml(message).href).toBe(link.href);
    expect(message.text).toContain(link.href);
  });

  test("the HTML shows the host with a zero-width space after each dot, so it is not autolinked", async () => {
    const { config } = setup();
    const { message } = await mailedLink(config, "alice@example.com", { origin });
    expect(message.html).toContain("auth.\u200Bexample.\u200Bcom");
    // Outside the href, the plain host never appears in the HTML.
    const withoutHref = message.html.replace(/href="[^"]*"/g, "");
    expect(withoutHref).not.toContain("auth.example.com");
  });

  test("the button uses the theme's brandColor and buttonText, with defaults", async () => {
    const themed = setup({ theme: { brandColor: "#ff0066", buttonText: "#101010" } });
    const { message } = await mailedLink(themed.config, "alice@example.com");
    expect(message.html).toMatch(/<a [^>]*style="[^"]*background:#ff0066;color:#101010/);

    const plain = setup();
    const { message: defaults } = await mailedLink(plain.config, "alice@example.com");
    expect(defaults.html).toMatch(/<a [^>]*style="[^"]*background:#346df1;color:#ffffff/);
  });

  test("a theme colour that is not a colour falls back to the default", async () => {
    const { config } = setup({
      theme: { brandColor: "red;background:url(https://evil.example/x)" },
    });
    const { message } = await mailedLink(config, "alice@example.com");
    expect(message.html).not.toContain("evil.example");
    expect(message.html).toContain("background:#346df1");
  });

  test("following the link from the text part signs in", async () => {
    const { config } = setup();
    const { message, jar } = await mailedLink(config, "alice@example.com", { origin });
    const response = await click(config, jar, linkInText(message));
    expect(locationOf(response)).toBe(`${origin}/`);
    const session = await (await send(config, jar, "/auth/session", { origin })).json();
    expect(session.user.email).toBe("alice@example.com");
  });

  test("following the link from the HTML part signs in", async () => {
    const { config } = setup();
    const { message, jar } = await mailedLink(config, "alice+tag@example.com", {
      origin,
      extra: { callbackUrl: `${origin}/inbox?a=1&b=2` },
    });
    const response = await click(config, jar, linkInHtml(message));
    expect(locationOf(response)).toBe(`${origin}/inbox?a=1&b=2`);
    const session = await (await send(config, jar, "/auth/session", { origin })).json();
    expect(session.user.email).toBe("alice+tag@example.com");
  });
});

describe("the signIn callback", () => {
  test("runs with email.verificationRequest on the request and without it on the click", async () => {
    const signIn = vi.fn(() => true);
    const { config } = setup({ callbacks: { signIn } });
    const { link, jar } = await mailedLink(config, "alice@example.com");
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(signIn.mock.calls[0]).toEqual([
      expect.objectContaining({
        user: expect.objectContaining({ email: "alice@example.com", emailVerified: null }),
        account: expect.objectContaining({
          provider: "nodemailer",
          type: "email",
          providerAccountId: "alice@example.com",
        }),
        email: { verificationRequest: true },
      }),
    ]);
    await click(config, jar, link);
    expect(signIn).toHaveBeenCalledTimes(2);
    const second = (signIn.mock.calls[1] as unknown[])[0] as Record<string, unknown>;
    expect(second.user).toMatchObject({ email: "alice@example.com" });
    expect(second.account).toMatchObject({ provider: "nodemailer", type: "email" });
    expect(second.email).toBeUndefined();
  });

  test.each([
    ["false", false, `${ORIGIN}/auth/error?error=AccessDenied`],
    ["a path", "/not-allowed", `${ORIGIN}/not-allowed`],
  ] as const)(
    "returning %s on the request: redirect, no email, no token",
    async (_, verdict, location) => {
      const { config, adapter } = setup({ callbacks: { signIn: () => verdict } });
      const before = inbox.received;
      const response = await requestLink(config, new Jar(), "alice@example.com");
      expect(response.status).toBe(302);
      expect(locationOf(response)).toBe(location);
      expect(inbox.received).toBe(before);
      expect(adapter.rows.count().verificationTokens).toBe(0);
    },
  );

  test("refusing on the click is AccessDenied: no user, no session", async () => {
    const signIn = vi.fn(({ email }: { email?: { verificationRequest?: boolean } }) =>
      Boolean(email?.verificationRequest),
    );
    const { config, adapter } = setup({ callbacks: { signIn } });
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const response = await click(config, jar, link);
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(adapter.rows.count()).toMatchObject({ users: 0, sessions: 0 });
    expect(await sessionOf(config, jar)).toBeNull();
  });
});

describe("sessions, events and pages", () => {
  test.each(["jwt", "database"] as const)(
    "%s strategy: signed in, signIn event",
    async (strategy) => {
      const { config, adapter, events } = setup({ session: { strategy } });
      const { link, jar } = await mailedLink(config, "alice@example.com");
      await click(config, jar, link);
      expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
      expect(adapter.rows.count().sessions).toBe(strategy === "database" ? 1 : 0);
      expect(events.signIn).toHaveBeenCalledTimes(1);
      expect(events.signIn.mock.calls[0]![0]).toMatchObject({
        user: { email: "alice@example.com" },
        account: { provider: "nodemailer", type: "email", providerAccountId: "alice@example.com" },
        isNewUser: true,
      });
    },
  );

  test("the callbackUrl of the sign-in POST is where the click lands", async () => {
    const { config } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com", {
      extra: { callbackUrl: "/dashboard?tab=1" },
    });
    expect(link.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/dashboard?tab=1`);
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/dashboard?tab=1`);
  });

  test("pages.newUser receives a new user (with the callbackUrl); a returning user skips it", async () => {
    const { config } = setup({ pages: { newUser: "/welcome" } });
    const first = await mailedLink(config, "alice@example.com", { extra: { callbackUrl: "/app" } });
    const location = new URL(locationOf(await click(config, first.jar, first.link))!);
    expect(location.origin + location.pathname).toBe(`${ORIGIN}/welcome`);
    expect(location.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/app`);

    const second = await mailedLink(config, "alice@example.com", {
      extra: { callbackUrl: "/app" },
    });
    expect(locationOf(await click(config, second.jar, second.link))).toBe(`${ORIGIN}/app`);
  });
});

describe("secret rotation", () => {
  test("a link sent under the old secret works while it stays in the list, not after", async () => {
    const adapter = MemoryAdapter();
    const base = {
      trustHost: true,
      logger: recordingLogger(),
      adapter,
      providers: [Nodemailer({ server: inbox.server, from: FROM })],
    } satisfies Partial<AuthConfig>;
    const before: AuthConfig = { ...base, secret: "old" };
    const a = await mailedLink(before, "alice@example.com");
    const b = await mailedLink(before, "bob@example.com");

    const rotated: AuthConfig = { ...base, secret: ["new", "old"] };
    expect(locationOf(await click(rotated, a.jar, a.link))).toBe(`${ORIGIN}/`);
    expect((await sessionOf(rotated, a.jar))?.user?.email).toBe("alice@example.com");

    const retired: AuthConfig = { ...base, secret: ["new"] };
    await expectVerification(retired, await click(retired, b.jar, b.link), b.jar);
  });

  test("links are issued under the newest secret", async () => {
    const { config, adapter } = setup({ secret: ["new", "old"] });
    const created = vi.spyOn(adapter, "createVerificationToken");
    const { link } = await mailedLink(config, "alice@example.com");
    expect(created.mock.calls[0]![0].token).toBe(sha256hex(`${link.searchParams.get("token")}new`));
  });

  test("a token hashed with the comma-joined list (as Auth.js stores it) is accepted", async () => {
    const { config, adapter } = setup({ secret: ["new", "old"] });
    const token = "a".repeat(64);
    await adapter.createVerificationToken({
      identifier: "alice@example.com",
      token: sha256hex(`${token}new,old`),
      expires: new Date(Date.now() + 60_000),
    });
    const link = new URL(`${ORIGIN}/auth/callback/nodemailer`);
    link.search = new URLSearchParams({
      callbackUrl: `${ORIGIN}/`,
      token,
      email: "alice@example.com",
    }).toString();
    const jar = new Jar();
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
    expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
  });
});

describe("provider options", () => {
  test("generateVerificationToken supplies the token", async () => {
    const { config, adapter } = setup(
      {},
      { generateVerificationToken: () => "my-custom-token-123" },
    );
    const { link, jar } = await mailedLink(config, "alice@example.com");
    expect(link.searchParams.get("token")).toBe("my-custom-token-123");
    expect(
      adapter.rows.verificationToken({
        identifier: "alice@example.com",
        token: sha256hex(`my-custom-token-123${SECRET}`),
      }),
    ).not.toBeNull();
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
  });

  test("normalizeIdentifier replaces the default normaliser", async () => {
    const normalizeIdentifier = vi.fn((input: string) =>
      input
        .trim()
        .toLowerCase()
        .replace(/\+[^@]*@/, "@"),
    );
    const { config } = setup({}, { normalizeIdentifier });
    const { message, link, jar } = await mailedLink(config, "  Alice+News@Example.com ");
    expect(normalizeIdentifier).toHaveBeenCalledWith("  Alice+News@Example.com ");
    expect(message.envelope.to).toEqual(["alice@example.com"]);
    expect(link.searchParams.get("email")).toBe("alice@example.com");
    await click(config, jar, link);
    expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
  });

  test("a normalizeIdentifier that throws sends the user back with invalid_email", async () => {
    const { config, adapter, logger } = setup(
      {},
      {
        normalizeIdentifier: () => {
          throw new Error("only @example.com");
        },
      },
    );
    const before = inbox.received;
    const response = await requestLink(config, new Jar(), "alice@other.example");
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/signin?error=EmailSignin&code=invalid_email`);
    expect(inbox.received).toBe(before);
    expect(adapter.rows.count().verificationTokens).toBe(0);
    // The address was refused: the visitor's mistake, logged once at warn.
    expectOneFailure(logger, "EmailSignInError", { level: "warn" });
  });

  test("from reaches the message", async () => {
    const { config } = setup({}, { from: "Acme Login <no-reply@acme.example>" });
    const { message } = await mailedLink(config, "alice@example.com");
    expect(message.from).toBe("no-reply@acme.example");
    expect(message.raw).toMatch(/^From: Acme Login <no-reply@acme\.example>$/m);
  });

  test("Email({ sendVerificationRequest }) works without nodemailer", async () => {
    const adapter = MemoryAdapter();
    const sent: Parameters<EmailConfig["sendVerificationRequest"]>[0][] = [];
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      adapter,
      theme: { brandColor: "#123456" },
      providers: [
        Email({
          from: "x@example.com",
          sendVerificationRequest: (params) => {
            sent.push(params);
          },
        }),
      ],
    };
    const jar = new Jar();
    const before = Date.now();
    const response = await requestLink(config, jar, "alice@example.com", { provider: "email" });
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
    expect(sent).toHaveLength(1);
    const params = sent[0]!;
    const link = new URL(params.url);
    expect(params.identifier).toBe("alice@example.com");
    expect(link.pathname).toBe("/auth/callback/email");
    expect(link.searchParams.get("token")).toBe(params.token);
    expect(params.expires.valueOf()).toBeGreaterThanOrEqual(before + DAY * 1000);
    expect(params.provider).toMatchObject({ id: "email", type: "email", from: "x@example.com" });
    expect(params.theme).toMatchObject({ brandColor: "#123456" });
    expect(params.request).toBeInstanceOf(Request);
    expect(adapter.rows.count().verificationTokens).toBe(1);

    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
    expect((await sessionOf(config, jar))?.user?.email).toBe("alice@example.com");
  });
});

describe("configuration", () => {
  async function configError(config: AuthConfig) {
    const logger = recordingLogger();
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), { ...config, logger });
    const error = logger.error.mock.calls[0]?.[0] as (Error & { type?: string }) | undefined;
    return { response, error, logger };
  }

  test("an email provider without an adapter is MissingAdapter (500 JSON)", async () => {
    const { config } = setup({ adapter: undefined });
    const { response, error } = await configError(config);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: expect.any(String) });
    expect(error?.type).toBe("MissingAdapter");
  });

  test("an adapter without useVerificationToken is MissingAdapterMethods naming it", async () => {
    const { useVerificationToken: _, ...partial } = MemoryAdapter();
    const { config } = setup({ adapter: partial });
    const { response, error } = await configError(config);
    expect(response.status).toBe(500);
    expect(error?.type).toBe("MissingAdapterMethods");
    expect(error?.message).toContain("useVerificationToken");
    expect(error?.message).not.toContain("createVerificationToken");
  });
});

describe("environment", () => {
  const noServer = () => setup({}, { server: undefined, from: undefined });

  test.each(["AUTH_NODEMAILER_SERVER", "EMAIL_SERVER"])(
    "Nodemailer() without server reads %s",
    async (name) => {
      vi.stubEnv("AUTH_NODEMAILER_SERVER", undefined);
      vi.stubEnv("EMAIL_SERVER", undefined);
      vi.stubEnv(name, `smtp://${inbox.host}:${inbox.port}`);
      const { config } = noServer();
      const { link, jar } = await mailedLink(config, "alice@example.com");
      expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
    },
  );

  test("AUTH_NODEMAILER_SERVER wins over EMAIL_SERVER", async () => {
    vi.stubEnv("AUTH_NODEMAILER_SERVER", `smtp://${inbox.host}:${inbox.port}`);
    vi.stubEnv("EMAIL_SERVER", "smtp://127.0.0.1:1");
    const { config } = noServer();
    await mailedLink(config, "alice@example.com");
  });

  test.each(["AUTH_NODEMAILER_FROM", "EMAIL_FROM"])("the sender comes from %s", async (name) => {
    vi.stubEnv("AUTH_NODEMAILER_FROM", undefined);
    vi.stubEnv("EMAIL_FROM", undefined);
    vi.stubEnv(name, `From Env <${name.toLowerCase()}@example.com>`);
    const { config } = setup({}, { from: undefined });
    const { message } = await mailedLink(config, "alice@example.com");
    expect(message.from).toBe(`${name.toLowerCase()}@example.com`);
  });

  test("no server anywhere: EmailSignin send_failed with the cause logged, no token left", async () => {
    vi.stubEnv("AUTH_NODEMAILER_SERVER", undefined);
    vi.stubEnv("EMAIL_SERVER", undefined);
    const { config, adapter, logger } = noServer();
    const response = await requestLink(config, new Jar(), "alice@example.com");
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/signin?error=EmailSignin&code=send_failed`);
    expect(adapter.rows.count().verificationTokens).toBe(0);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(String((logger.error.mock.calls[0]![0] as Error).cause)).toMatch(/EMAIL_SERVER/);
  });
});
