/**
 * One-time sign-in codes through `Auth()` with the memory adapter: typed on the verify-request
 * page, stored hashed, bound to the browser that asked, five wrong tries and the code is gone,
 * expired with the link, never logged.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email, { signInEmail } from "@gatehousejs/core/providers/email";
import type { AuthConfig, EmailConfig, RateLimitStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send, setCookies } from "./helpers.js";
import { followLink, formOf } from "./support/email-link.js";

const CODE_COOKIE = "gatehouse.email-code";
const SESSION_COOKIE = "authjs.session-token";
const VERIFY = `${ORIGIN}/auth/verify-request?provider=email&type=email`;
const WRONG = `${VERIFY}&error=Verification&code=wrong_code`;
const UNUSABLE = `${VERIFY}&error=Verification&code=code_unusable`;

afterEach(() => {
  vi.useRealTimers();
});

function setup(options: Partial<EmailConfig> = {}, extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const mails: { url: URL; code?: string; identifier: string }[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    providers: [
      Email({
        code: true,
        ...options,
        sendVerificationRequest: ({ url, code, identifier }) => {
          mails.push({ url: new URL(url), code, identifier });
        },
      }),
    ],
    ...extra,
  };
  return { config, adapter, logger, mails };
}

type World = ReturnType<typeof setup>;

/** Asks for a sign-in email in `jar`; returns the answer and what was mailed. */
async function ask(world: World, jar: Jar, email = "alice@example.com", callbackUrl?: string) {
  const form: Record<string, string> = { csrfToken: await csrfToken(world.config, jar), email };
  if (callbackUrl) form.callbackUrl = callbackUrl;
  const answer = await send(world.config, jar, "/auth/signin/email", { form });
  return { answer, mail: world.mails.at(-1)! };
}

/** Types `code` on the verify-request page of `jar` and submits it. */
async function typeCode(world: World, jar: Jar, code: string, headers?: Record<string, string>) {
  return send(world.config, jar, "/auth/callback/email", {
    form: { csrfToken: await csrfToken(world.config, jar), code },
    headers,
  });
}

async function sessionEmail(config: AuthConfig, jar: Jar): Promise<string | undefined> {
  const session = (await (await send(config, jar, "/auth/session")).json()) as {
    user?: { email?: string };
  } | null;
  return session?.user?.email;
}

/** A wrong code of the same shape as `code`. */
const wrongFor = (code: string) => code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));

describe("sending a code", () => {
  test("8 random digits go to sendVerificationRequest; only hashes are stored; the browser gets a sealed cookie", async () => {
    const world = setup();
    const created = vi.spyOn(world.adapter, "createVerificationToken");
    const jar = new Jar();
    const { answer, mail } = await ask(world, jar);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(VERIFY);
    expect(mail.code).toMatch(/^\d{8}$/);

    // Two rows: the link's token hash and the code's keyed hash, both expiring with the link.
    expect(created).toHaveBeenCalledTimes(2);
    const [link, code] = created.mock.calls.map(([row]) => row);
    expect(code!.identifier).toBe("alice@example.com");
    expect(code!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(code!.token).not.toContain(mail.code);
    expect(code!.expires).toEqual(link!.expires);

    const cookie = setCookies(answer).get(CODE_COOKIE)!;
    expect(cookie.raw).toMatch(/HttpOnly/);
    expect(cookie.raw).toMatch(/Max-Age=86400/);
    expect(cookie.raw).toMatch(/SameSite=Lax/);
    // Encrypted: neither the code nor the address can be read from it.
    expect(cookie.value.split(".")).toHaveLength(5);
    expect(cookie.value).not.toContain(mail.code);
    expect(cookie.value).not.toContain("alice");
  });

  test("each request gets its own code", async () => {
    const world = setup({}, { rateLimit: false });
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++)
      codes.add((await ask(world, new Jar(), `u${i}@example.com`)).mail.code!);
    expect(codes.size).toBeGreaterThan(15);
  });

  test("random bytes that would bias the digits are drawn again, never folded in", async () => {
    const world = setup();
    // 250..255 would make 0..5 likelier than 6..9 if taken modulo 10: they are skipped.
    const bytes = [255, 250, 3, 11, 24, 251, 1, 5, 9, 2, 6, 0, 0, 0, 0, 0];
    const random = vi.spyOn(crypto, "getRandomValues").mockImplementationOnce((array) => {
      (array as Uint8Array).set(bytes.slice(0, (array as Uint8Array).length));
      return array;
    });
    try {
      const { mail } = await ask(world, new Jar());
      expect(mail.code).toBe("31415926");
    } finally {
      random.mockRestore();
    }
  });

  test("a custom length and alphabet shape the code, and typing is forgiving", async () => {
    const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    const world = setup({ code: { length: 6, alphabet } });
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    expect(mail.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    const typed = ` ${mail.code!.slice(0, 3).toLowerCase()}-${mail.code!.slice(3).toLowerCase()} `;
    const answer = await typeCode(world, jar, typed);
    expect(answer.headers.get("location")).toBe(ORIGIN);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test.each([
    ["too short", { length: 3 }],
    ["guessable", { length: 4, alphabet: "01" }],
    ["repeated characters", { alphabet: "0123456789012" }],
    ["whitespace", { alphabet: "0123 456789" }],
  ])("a code option that is %s is a configuration error, and nothing is sent", async (_, code) => {
    const world = setup({ code });
    const { answer } = await ask(world, new Jar());
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(world.mails).toHaveLength(0);
    expect(world.adapter.rows.count().verificationTokens).toBe(0);
  });

  test("without code the provider sends none, sets no cookie and shows no form", async () => {
    const world = setup({ code: false });
    const jar = new Jar();
    const { answer, mail } = await ask(world, jar);
    expect(mail.code).toBeUndefined();
    expect(setCookies(answer).has(CODE_COOKIE)).toBe(false);
    const page = await (
      await send(world.config, jar, "/auth/verify-request?provider=email")
    ).text();
    expect(page).not.toContain('name="code"');
    const typed = await typeCode(world, jar, "12345678");
    expect(typed.headers.get("location")).toBe(UNUSABLE);
  });

  test("the default email shows the code in its text and HTML parts", () => {
    const message = signInEmail({ url: "https://app.example/auth/callback/email", code: "493027" });
    expect(message.text).toContain("493027");
    expect(message.html).toContain("<strong>493027</strong>");
    expect(message.subject).not.toContain("493027");
    expect(signInEmail({ url: "https://app.example/x" }).text).not.toContain("code");
  });
});

describe("the verify-request page", () => {
  test("shows a code form to the browser that asked, and none to another", async () => {
    const world = setup();
    const jar = new Jar();
    await ask(world, jar);
    const page = await send(world.config, jar, "/auth/verify-request?provider=email&type=email");
    const html = await page.text();
    expect(html).toContain('name="code"');
    expect(html).toContain('autocomplete="one-time-code"');
    expect(html).toContain('inputmode="numeric"');
    expect(html).toContain("alice@example.com");
    const form = formOf(html);
    expect(form.action).toBe(`${ORIGIN}/auth/callback/email`);
    expect(form.fields.csrfToken).toBe(await csrfToken(world.config, jar));

    const other = await send(world.config, new Jar(), "/auth/verify-request?provider=email");
    expect(await other.text()).not.toContain('name="code"');
  });

  test("an unknown ?code= shows a fixed message, never the value", async () => {
    const world = setup();
    const page = await send(
      world.config,
      new Jar(),
      "/auth/verify-request?provider=email&error=Verification&code=%3Cscript%3Ex",
    );
    const html = await page.text();
    expect(html).toContain("The code could not be used");
    expect(html).not.toContain("script&gt;x");
    expect(html).not.toContain("<script>x");
  });

  test("after a wrong code it says so", async () => {
    const world = setup();
    const jar = new Jar();
    await ask(world, jar);
    const page = await send(world.config, jar, WRONG.slice(ORIGIN.length));
    expect(await page.text()).toContain("That code is not right");
  });

  test("a custom verifyRequest page receives the failure", async () => {
    const world = setup({}, { pages: { verifyRequest: "/check-email" } });
    const jar = new Jar();
    await ask(world, jar);
    const wrong = await typeCode(world, jar, "00000000");
    expect(wrong.headers.get("location")).toBe(
      `${ORIGIN}/check-email?provider=email&type=email&error=Verification&code=wrong_code`,
    );
  });
});

describe("redeeming a code", () => {
  test("the right code in the browser that asked signs in, once, and spends the link too", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar, "alice@example.com", "/welcome");
    const answer = await typeCode(world, jar, mail.code!);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/welcome`);
    const cookies = setCookies(answer);
    expect(cookies.has(SESSION_COOKIE)).toBe(true);
    expect(cookies.get(CODE_COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
    expect(world.adapter.rows.count().verificationTokens).toBe(0);

    const link = await followLink(world.config, new Jar(), mail.url);
    expect(link.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });

  test("a sign-in page visited while the code is on its way (a router's prefetch) does not move where it lands", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar, "alice@example.com", "/welcome");
    // A prefetched link to a protected page is redirected to the sign-in page, whose callbackUrl
    // rewrites the callback-url cookie in this browser.
    const visit = await send(world.config, jar, "/auth/signin?callbackUrl=%2Fadmin");
    expect(visit.status).toBe(200);
    expect(setCookies(visit).get("authjs.callback-url")?.value).toBe(`${ORIGIN}/admin`);
    const answer = await typeCode(world, jar, mail.code!);
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/welcome`);
  });

  test("a callbackUrl posted with the code still decides where it lands", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar, "alice@example.com", "/welcome");
    const answer = await send(world.config, jar, "/auth/callback/email", {
      form: {
        csrfToken: await csrfToken(world.config, jar),
        code: mail.code!,
        callbackUrl: "/next",
      },
    });
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/next`);
  });

  test("with X-Auth-Return-Redirect: 200 { url } for the right code and for a wrong one", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const headers = { "X-Auth-Return-Redirect": "1" };
    const wrong = await typeCode(world, jar, wrongFor(mail.code!), headers);
    expect(await wrong.json()).toEqual({ url: WRONG });
    const right = await typeCode(world, jar, mail.code!, headers);
    expect(await right.json()).toEqual({ url: ORIGIN });
  });

  test("a link opened and confirmed in the same browser spends the code", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    await followLink(world.config, jar, mail.url);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
    expect(world.adapter.rows.count().verificationTokens).toBe(0);
    expect(jar.cookies.has(CODE_COOKIE)).toBe(false);
  });

  test("a wrong code goes back to the page; four wrong tries leave the right code working", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    for (const typed of [
      wrongFor(mail.code!),
      "1234",
      "abcdefgh",
      wrongFor(wrongFor(mail.code!)),
    ]) {
      const answer = await typeCode(world, jar, typed);
      expect(answer.headers.get("location")).toBe(WRONG);
      expect(setCookies(answer).has(SESSION_COOKIE)).toBe(false);
    }
    expect(await sessionEmail(world.config, jar)).toBeUndefined();
    await typeCode(world, jar, mail.code!);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test("the 5th wrong try invalidates the code: the right one then fails, the link still works", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const answers: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      answers.push((await typeCode(world, jar, wrongFor(mail.code!))).headers.get("location"));
    }
    expect(world.adapter.rows.count().verificationTokens).toBe(2);
    const fifth = await typeCode(world, jar, wrongFor(mail.code!));
    answers.push(fifth.headers.get("location"));
    expect(answers).toEqual([WRONG, WRONG, WRONG, WRONG, UNUSABLE]);
    // The code's row is deleted; the link's stays.
    expect(world.adapter.rows.count().verificationTokens).toBe(1);
    expect(setCookies(fifth).get(CODE_COOKIE)?.raw).toMatch(/Max-Age=0/);

    const right = await typeCode(world, jar, mail.code!);
    expect(right.headers.get("location")).toBe(UNUSABLE);
    expect(setCookies(right).has(SESSION_COOKIE)).toBe(false);
    expect(await sessionEmail(world.config, jar)).toBeUndefined();

    // The link was never the weak part: it still signs in.
    await followLink(world.config, jar, mail.url);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test("the right code with an old cookie replayed after invalidation still fails", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const saved = jar.cookies.get(CODE_COOKIE)!;
    for (let i = 0; i < 5; i++) await typeCode(world, jar, wrongFor(mail.code!));
    jar.cookies.set(CODE_COOKIE, saved);
    const right = await typeCode(world, jar, mail.code!);
    expect(right.headers.get("location")).toBe(UNUSABLE);
    expect(await sessionEmail(world.config, jar)).toBeUndefined();
  });

  test("without countVerificationTokenTry, tries are counted in the configured rate-limit store", async () => {
    const hits: string[] = [];
    const counts = new Map<string, number>();
    const store: RateLimitStore = {
      async hit(key, windowMs) {
        hits.push(key);
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        return { count, resetAt: Date.now() + windowMs };
      },
      async peek(key) {
        const count = counts.get(key);
        return count === undefined ? null : { count, resetAt: Date.now() + 1000 };
      },
      async reset(key) {
        counts.delete(key);
      },
    };
    // An adapter written for Auth.js: no countVerificationTokenTry.
    const { countVerificationTokenTry: _, ...adapter } = MemoryAdapter();
    const world = setup({}, { rateLimit: { store }, adapter });
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    await typeCode(world, jar, wrongFor(mail.code!));
    const codeKeys = hits.filter((key) => key.startsWith("email-code:"));
    expect(codeKeys).toHaveLength(1);
    expect(codeKeys[0]).not.toContain("alice");
    expect(codeKeys[0]).not.toContain(mail.code);
    // Another instance sharing the store already counted four: this try is the 5th.
    counts.set(codeKeys[0]!, 4);
    const fifth = await typeCode(world, jar, wrongFor(mail.code!));
    expect(fifth.headers.get("location")).toBe(UNUSABLE);
  });

  test("the code from another browser is refused, with no cookie or with its own", async () => {
    const world = setup();
    const asker = new Jar();
    const { mail } = await ask(world, asker);

    const bare = new Jar();
    const noCookie = await typeCode(world, bare, mail.code!);
    expect(noCookie.headers.get("location")).toBe(UNUSABLE);
    expect(await sessionEmail(world.config, bare)).toBeUndefined();

    // Another browser that asked for a code of its own, for the same address.
    const other = new Jar();
    await ask(world, other);
    const crossed = await typeCode(world, other, mail.code!);
    expect(crossed.headers.get("location")).toBe(WRONG);
    expect(await sessionEmail(world.config, other)).toBeUndefined();

    // A forged cookie is no binding either.
    const forged = new Jar();
    forged.cookies.set(CODE_COOKIE, "eyJhbGciOiJkaXIifQ..x.y.z");
    expect((await typeCode(world, forged, mail.code!)).headers.get("location")).toBe(UNUSABLE);

    await typeCode(world, asker, mail.code!);
    expect(await sessionEmail(world.config, asker)).toBe("alice@example.com");
  });

  test("an expired code is refused", async () => {
    const world = setup({ maxAge: 600 });
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 601_000);
    const answer = await typeCode(world, jar, mail.code!);
    expect(answer.headers.get("location")).toBe(UNUSABLE);
    expect(await sessionEmail(world.config, jar)).toBeUndefined();
  });

  test("a hostile callbackUrl posted with the code is refused before the code is spent", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const hostile = await send(world.config, jar, "/auth/callback/email", {
      form: {
        csrfToken: await csrfToken(world.config, jar),
        code: mail.code!,
        callbackUrl: "https://evil.example/",
      },
    });
    expect(hostile.headers.get("location")).not.toContain("evil.example");
    expect(await sessionEmail(world.config, jar)).toBeUndefined();
    await typeCode(world, jar, mail.code!);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test("without the CSRF token a code is MissingCSRF and is not counted", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const answer = await send(world.config, jar, "/auth/callback/email", {
      form: { code: mail.code! },
    });
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(await sessionEmail(world.config, jar)).toBeUndefined();
    await typeCode(world, jar, mail.code!);
    expect(await sessionEmail(world.config, jar)).toBe("alice@example.com");
  });

  test("codes never reach the logs, right or wrong", async () => {
    const world = setup();
    const jar = new Jar();
    const { mail } = await ask(world, jar);
    const wrong = wrongFor(mail.code!);
    await typeCode(world, jar, wrong);
    await typeCode(world, new Jar(), mail.code!);
    await typeCode(world, jar, mail.code!);
    const logged = JSON.stringify(
      [world.logger.error, world.logger.warn, world.logger.debug].flatMap((fn) =>
        fn.mock.calls.map((call) =>
          call.map((part) => (part instanceof Error ? `${part.message} ${part.stack}` : part)),
        ),
      ),
    );
    expect(world.logger.warn).toHaveBeenCalledTimes(2);
    expect(logged).not.toContain(mail.code);
    expect(logged).not.toContain(wrong);
  });
});
