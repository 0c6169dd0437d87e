/**
 * Email sign-in against hostile or broken input, through `Auth()` with nodemailer and a real SMTP
 * server: malformed and look-alike addresses, missing CSRF, SMTP failures, broken and tampered
 * links, 20 concurrent clicks on one link, what reaches the logs, and which modules the plain
 * email provider loads.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Nodemailer from "@gatehousejs/core/providers/nodemailer";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { followLink } from "./support/email-link.js";
import { expectOneFailure } from "./support/failures.js";
import { linkInText, type SmtpInbox, startSmtpInbox } from "./support/smtp.js";

let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await startSmtpInbox();
});
afterAll(() => inbox.close());

function setup(overrides: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    providers: [Nodemailer({ server: inbox.server, from: "Test <t@example.com>" })],
    ...overrides,
  };
  return { config, adapter, logger };
}

async function requestLink(config: AuthConfig, jar: Jar, form: Record<string, string>) {
  const token = await csrfToken(config, jar);
  return send(config, jar, "/auth/signin/nodemailer", { form: { csrfToken: token, ...form } });
}

async function mailedLink(config: AuthConfig, email: string, extra: Record<string, string> = {}) {
  const jar = new Jar();
  const response = await requestLink(config, jar, { email, ...extra });
  expect(locationOf(response)).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`);
  return { link: linkInText(await inbox.next()), jar };
}

const click = (config: AuthConfig, jar: Jar, link: URL) => followLink(config, jar, link);

async function sessionEmail(config: AuthConfig, jar: Jar): Promise<string | undefined> {
  const session = await (await send(config, jar, "/auth/session")).json();
  return session?.user?.email;
}

const INVALID_EMAIL = `${ORIGIN}/auth/signin?error=EmailSignin&code=invalid_email`;
const SEND_FAILED = `${ORIGIN}/auth/signin?error=EmailSignin&code=send_failed`;
const VERIFICATION = `${ORIGIN}/auth/error?error=Verification`;

/** The response's `Location`, as a normalised absolute URL (`http://host` and `http://host/` alike). */
function locationOf(response: Response): string | null {
  const location = response.headers.get("location");
  return location === null ? null : new URL(location, ORIGIN).href;
}

describe("addresses that are refused", () => {
  const cases: [string, string][] = [
    ["no @", "alice.example.com"],
    ["two @", "alice@example.com@attacker.example"],
    ["an empty local part", "@example.com"],
    ["an empty domain", "alice@"],
    ["only an @", "@"],
    ["an empty string", ""],
    ["only spaces", "   "],
    ["quotes", '"alice"@example.com'],
    ["a quoted @", '"victim@example.com"@attacker.example'],
    ["a comma in the domain", "alice@example.com,attacker.example"],
    ["a space inside", "alice @example.com"],
    ["a tab inside", "alice\t@example.com"],
    ["a newline (header injection)", "alice@example.com\r\nBcc: attacker@evil.example"],
    ["a full-width ＠ homoglyph", "victim＠example.com@attacker.example"],
    ["a 400-character address", `${"a".repeat(388)}@example.com`],
    ["a leading dot in the domain", "alice@.example.com"],
    ["a double dot in the domain", "alice@example..com"],
  ];

  test.each(cases)(
    "%s: back to the sign-in page with invalid_email, nothing sent or stored",
    async (_, email) => {
      const { config, adapter, logger } = setup();
      const before = inbox.received;
      const response = await requestLink(config, new Jar(), { email });
      expect(response.status).toBe(302);
      expect(locationOf(response)).toBe(INVALID_EMAIL);
      expect(inbox.received).toBe(before);
      expect(adapter.rows.count()).toMatchObject({ verificationTokens: 0, users: 0 });
      expectOneFailure(logger, "EmailSignInError", { level: "warn" });
    },
  );

  test("a form without an email field is refused the same way", async () => {
    const { config, adapter } = setup();
    const response = await requestLink(config, new Jar(), {});
    expect(locationOf(response)).toBe(INVALID_EMAIL);
    expect(adapter.rows.count().verificationTokens).toBe(0);
  });

  test("a JSON body with a non-string email is refused, not a 500", async () => {
    const { config, adapter } = setup();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    for (const email of [["a@example.com"], { a: 1 }, 42, null]) {
      const response = await send(config, jar, "/auth/signin/nodemailer", {
        json: { csrfToken: token, email },
      });
      expect(response.status).toBeLessThan(500);
      expect(locationOf(response) ?? "").not.toContain("Configuration");
    }
    expect(adapter.rows.count().verificationTokens).toBe(0);
  });

  test("the sign-in page says what is wrong with the address", async () => {
    const { config } = setup();
    const page = await send(config, new Jar(), "/auth/signin?error=EmailSignin&code=invalid_email");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("That email address does not look right");
  });
});

describe("addresses that mail software reads differently", () => {
  // Each passes "exactly one @, no quotes, no whitespace, no comma in the domain", but
  // nodemailer reads the `to` string as an RFC 5322 address list: a display name, a comment,
  // a group or a second address. The identifier that gets `emailVerified` must be the mailbox
  // that received the link; otherwise the address is refused.
  const cases: [string, string][] = [
    ["an angle-bracket address", "victim<attacker@evil.example>"],
    ["a comment after the domain", "attacker@evil.example(company.com"],
    ["a semicolon list in the local part", "someone;attacker@evil.example"],
    ["a comma list in the local part", "someone,attacker@evil.example"],
    ["a group colon in the local part", "group:attacker@evil.example"],
    ["a NUL byte", "attacker\u0000@evil.example"],
    ["a zero-width space", "alice\u200B@example.com"],
  ];

  test.each(cases)("%s: refused, or delivered to exactly that address", async (_, email) => {
    const { config, adapter } = setup();
    const before = inbox.received;
    const response = await requestLink(config, new Jar(), { email });
    const location = locationOf(response);
    if (location === INVALID_EMAIL) {
      expect(inbox.received).toBe(before);
      expect(adapter.rows.count().verificationTokens).toBe(0);
      return;
    }
    expect(location).toBe(`${ORIGIN}/auth/verify-request?provider=nodemailer&type=email`);
    const message = await inbox.next();
    expect(message.envelope.to).toEqual([email]);
  });
});

describe("failures on the way", () => {
  test("a POST without the CSRF token is MissingCSRF, nothing sent", async () => {
    const { config, adapter } = setup();
    const jar = new Jar();
    await csrfToken(config, jar);
    const before = inbox.received;
    const response = await send(config, jar, "/auth/signin/nodemailer", {
      form: { email: "alice@example.com" },
    });
    expect(locationOf(response)).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(inbox.received).toBe(before);
    expect(adapter.rows.count().verificationTokens).toBe(0);
  });

  test("a hostile callbackUrl is refused before anything is sent or stored", async () => {
    const { config, adapter } = setup();
    const before = inbox.received;
    const response = await requestLink(config, new Jar(), {
      email: "alice@example.com",
      callbackUrl: "https://evil.example/",
    });
    expect(locationOf(response)).not.toContain("evil.example");
    expect(inbox.received).toBe(before);
    expect(adapter.rows.count().verificationTokens).toBe(0);
  });

  test.each([
    ["recipient", /550/],
    ["data", /554/],
  ] as const)(
    "the SMTP server rejecting the %s: send_failed, cause logged once, no token left",
    async (stage, code) => {
      const { config, adapter, logger } = setup();
      inbox.failNext(stage);
      const before = inbox.received;
      const response = await requestLink(config, new Jar(), { email: "alice@example.com" });
      expect(response.status).toBe(302);
      expect(locationOf(response)).toBe(SEND_FAILED);
      expect(inbox.received).toBe(before);
      expect(adapter.rows.count().verificationTokens).toBe(0);
      expect(logger.error).toHaveBeenCalledTimes(1);
      const error = logger.error.mock.calls[0]![0] as Error & { type?: string };
      expect(error.type).toBe("EmailSignInError");
      expect(String((error.cause as Error).message)).toMatch(code);

      const page = await send(config, new Jar(), "/auth/signin?error=EmailSignin&code=send_failed");
      expect(await page.text()).toContain("could not be sent");
      // The next attempt goes through.
      await mailedLink(config, "alice@example.com");
    },
  );

  test("a sendVerificationRequest that throws a non-Error still leaves no token", async () => {
    const { config, adapter, logger } = setup({
      providers: [
        Nodemailer({
          server: inbox.server,
          sendVerificationRequest: () => {
            throw "quota exceeded";
          },
        }),
      ],
    });
    const response = await requestLink(config, new Jar(), { email: "alice@example.com" });
    expect(locationOf(response)).toBe(SEND_FAILED);
    expect(adapter.rows.count().verificationTokens).toBe(0);
    expect(logger.error).toHaveBeenCalledTimes(1);
  });
});

describe("broken and tampered links", () => {
  const broken: [string, (link: URL) => void][] = [
    ["no token", (l) => l.searchParams.delete("token")],
    ["no email", (l) => l.searchParams.delete("email")],
    ["an empty token", (l) => l.searchParams.set("token", "")],
    ["an empty email", (l) => l.searchParams.set("email", "")],
    ["neither", (l) => (l.search = "")],
    ["a 10 000-character token", (l) => l.searchParams.set("token", "a".repeat(10_000))],
    ["an uppercased email", (l) => l.searchParams.set("email", "ALICE@EXAMPLE.COM")],
  ];

  test.each(broken)("a link with %s is Verification, never a 500", async (_, mutate) => {
    const { config, adapter } = setup();
    const { link } = await mailedLink(config, "alice@example.com");
    const bad = new URL(link);
    mutate(bad);
    const jar = new Jar();
    const response = await click(config, jar, bad);
    expect(response.status).toBe(302);
    expect(locationOf(response)).toBe(VERIFICATION);
    expect(await sessionEmail(config, jar)).toBeUndefined();
    expect(adapter.rows.count().sessions).toBe(0);
  });

  test("alice's token with bob's address does not sign anyone in or touch bob", async () => {
    const { config, adapter } = setup();
    await adapter.createUser({ id: "u-bob", email: "bob@example.com", emailVerified: null });
    const { link } = await mailedLink(config, "alice@example.com");
    const tampered = new URL(link);
    tampered.searchParams.set("email", "bob@example.com");
    const jar = new Jar();
    const response = await click(config, jar, tampered);
    expect(locationOf(response)).toBe(VERIFICATION);
    expect(await sessionEmail(config, jar)).toBeUndefined();
    expect(adapter.rows.user("u-bob")!.emailVerified).toBeNull();
    expect(adapter.rows.count()).toMatchObject({ sessions: 0, accounts: 0 });
  });

  test("bob's link cannot be redeemed with alice's token", async () => {
    const { config } = setup();
    const alice = await mailedLink(config, "alice@example.com");
    const bob = await mailedLink(config, "bob@example.com");
    const mixed = new URL(bob.link);
    mixed.searchParams.set("token", alice.link.searchParams.get("token")!);
    const jar = new Jar();
    expect(locationOf(await click(config, jar, mixed))).toBe(VERIFICATION);
    expect(await sessionEmail(config, jar)).toBeUndefined();
  });

  test("a hostile callbackUrl in the link does not redirect off-site and does not burn the token", async () => {
    const { config, adapter } = setup();
    const { link, jar } = await mailedLink(config, "alice@example.com");
    const hostile = new URL(link);
    hostile.searchParams.set("callbackUrl", "https://evil.example/");
    const response = await click(config, new Jar(), hostile);
    expect(locationOf(response) ?? "").not.toContain("evil.example");
    expect(adapter.rows.count().verificationTokens).toBe(1);
    expect(locationOf(await click(config, jar, link))).toBe(`${ORIGIN}/`);
  });
});

describe("one link, many clicks", () => {
  test("20 concurrent clicks: exactly one signs in and one session row is created", async () => {
    const { config, adapter } = setup({ session: { strategy: "database" } });
    const { link } = await mailedLink(config, "alice@example.com", { callbackUrl: "/dashboard" });
    const jars = Array.from({ length: 20 }, () => new Jar());
    const responses = await Promise.all(jars.map((jar) => click(config, jar, link)));
    const locations = responses.map((r) => locationOf(r));
    expect(responses.every((r) => r.status === 302)).toBe(true);
    expect(locations.filter((l) => l === `${ORIGIN}/dashboard`)).toHaveLength(1);
    expect(locations.filter((l) => l === VERIFICATION)).toHaveLength(19);
    expect(adapter.rows.count()).toMatchObject({
      sessions: 1,
      users: 1,
      accounts: 1,
      verificationTokens: 0,
    });
    const winner = jars[locations.indexOf(`${ORIGIN}/dashboard`)]!;
    expect(await sessionEmail(config, winner)).toBe("alice@example.com");
  });

  test.each([
    ["a new address", false],
    ["an existing unverified user", true],
  ])(
    "two different links for %s clicked at once: both sign in, never Configuration",
    async (_, exists) => {
      const { config, adapter, logger } = setup();
      if (exists)
        await adapter.createUser({
          id: "u-alice",
          email: "alice@example.com",
          emailVerified: null,
        });
      const first = await mailedLink(config, "alice@example.com");
      const second = await mailedLink(config, "alice@example.com");
      const responses = await Promise.all([
        click(config, first.jar, first.link),
        click(config, second.jar, second.link),
      ]);
      expect(responses.map((r) => locationOf(r))).toEqual([`${ORIGIN}/`, `${ORIGIN}/`]);
      expect(logger.error).not.toHaveBeenCalled();
      expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1, sessions: 2 });
    },
  );
});

describe("secrets stay out of logs", () => {
  test("neither the token nor its hash appears in any log line, debug included", async () => {
    const { config, adapter, logger } = setup({ debug: true });
    const created: string[] = [];
    const original = adapter.createVerificationToken;
    adapter.createVerificationToken = (row) => {
      created.push(row.token);
      return original(row);
    };
    const { link, jar } = await mailedLink(config, "alice@example.com");
    await click(config, new Jar(), new URL(`${link.href}x`));
    await click(config, jar, link);
    await click(config, jar, link);
    const token = link.searchParams.get("token")!;
    const logged = [
      ...logger.error.mock.calls,
      ...logger.warn.mock.calls,
      ...logger.debug.mock.calls,
    ]
      .flat()
      .map((value) =>
        value instanceof Error ? `${value.message} ${String(value.cause)}` : JSON.stringify(value),
      )
      .join("\n");
    expect(logger.debug).toHaveBeenCalled();
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(created[0]);
  });
});

describe("the email provider module", () => {
  const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
  const specifiers =
    /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

  /** The source files reachable from `entry` through relative imports, and their package imports. */
  function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const match of readFileSync(file, "utf8").matchAll(specifiers)) {
        const specifier = match[1] ?? match[2] ?? match[3]!;
        if (specifier.startsWith("."))
          visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
        else packages.add(specifier);
      }
    };
    visit(resolve(srcDir, entry));
    return { files: seen, packages };
  }

  test("providers/email.ts and everything it imports never import nodemailer", () => {
    const { files, packages } = importGraph("providers/email.ts");
    // The walk follows static imports: the normaliser and the message template are reached.
    expect(files).toContain(resolve(srcDir, "lib/email/normalize.ts"));
    expect(files).toContain(resolve(srcDir, "lib/sign-in/email/message.ts"));
    expect([...packages].filter((p) => p === "nodemailer" || p.startsWith("nodemailer/"))).toEqual(
      [],
    );
  });

  test("(the import walk does find nodemailer where it is imported)", () => {
    expect(importGraph("providers/nodemailer.ts").packages).toContain("nodemailer");
    expect(importGraph("index.ts").packages).toContain("jose");
  });
});
