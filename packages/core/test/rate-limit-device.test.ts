/**
 * Device cookies, through `Auth()`: a browser that signed in to an account with the right
 * password counts its failures on that account apart from everyone else's, so strangers who fail
 * on purpose never lock the user's own browsers out, with the address unknown or known.
 */
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { MemoryRateLimitStore } from "../src/lib/features/rate-limit/memory.js";
import { alice, csrfToken, Jar, recordingLogger, SECRET, send, setCookies } from "./helpers.js";

const ACCOUNTS: Record<string, string> = { alice: "wonderland", mallory: "evil" };

/** Alice (wonderland) and Mallory (evil); the clock is the faked `Date`. */
function world(overrides: Partial<AuthConfig> = {}) {
  const authorize = vi.fn(({ username, password }: Partial<Record<string, unknown>>) =>
    typeof username === "string" && ACCOUNTS[username] === password
      ? { ...alice, id: username, email: `${username}@example.com` }
      : null,
  );
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    rateLimit: { store: MemoryRateLimitStore({ now: () => Date.now() }) },
    providers: [
      Credentials({
        credentials: {
          username: { label: "Username" },
          password: { label: "Password", type: "password" },
        },
        authorize,
      }),
    ],
    ...overrides,
  };
  return { config, authorize };
}

/** One sign-in attempt from `jar` (a browser that keeps its cookies); returns the status. */
async function attempt(
  config: AuthConfig,
  jar: Jar,
  { username = "alice", password = "wrong", address = "", origin = "" } = {},
): Promise<number> {
  const csrf = await csrfToken(config, jar, origin || undefined);
  const headers: Record<string, string> = { "x-auth-return-redirect": "1" };
  if (address) headers["x-forwarded-for"] = address;
  const response = await send(config, jar, "/auth/callback/credentials", {
    form: { csrfToken: csrf, username, password },
    headers,
    origin: origin || undefined,
  });
  return response.status;
}

const DEVICE = "gatehouse.device";

afterEach(() => {
  vi.useRealTimers();
});

describe("device cookies: the user's own browsers are never locked out by strangers", () => {
  test("address unknown: two wrong passwords a minute for an hour never refuse the user's browser (18 of 18 sign in)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config } = world();
    const browser = new Jar();
    expect(await attempt(config, browser, { password: "wonderland" })).toBe(200);
    expect(browser.cookies.has(DEVICE)).toBe(true);

    // The stranger spends the generous free failures of unknown clients (50), then keeps the
    // account's wait armed with a wrong password every 30 seconds.
    for (let i = 0; i < 51; i++) await attempt(config, new Jar());
    const answers: number[] = [];
    for (let second = 0; second < 3600; second += 10) {
      vi.setSystemTime(Date.now() + 10_000);
      if (second % 30 === 0) await attempt(config, new Jar());
      if (second % 200 === 0) {
        answers.push(await attempt(config, browser, { password: "wonderland" }));
      }
    }
    expect(answers).toHaveLength(18);
    expect(answers.filter((status) => status === 200)).toHaveLength(18);
    // A browser that never signed in to the account shares the armed backoff: honest limit.
    expect(await attempt(config, new Jar(), { password: "wonderland" })).toBe(429);
  });

  test("address known: a stranger behind the user's own address cannot lock the user's browser out", async () => {
    const { config } = world({ trustedProxies: 1 });
    const home = "203.0.113.9";
    const browser = new Jar();
    expect(await attempt(config, browser, { password: "wonderland", address: home })).toBe(200);
    // From the same address: the account's backoff there, and the address's 30 attempts a minute.
    const stranger: number[] = [];
    for (let i = 0; i < 40; i++) stranger.push(await attempt(config, new Jar(), { address: home }));
    expect(stranger.at(-1)).toBe(429);
    expect(await attempt(config, new Jar(), { password: "wonderland", address: home })).toBe(429);
    expect(await attempt(config, browser, { password: "wonderland", address: home })).toBe(200);
  });

  test("a device's own failures are still backed off: a stolen device cookie is no free guessing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world();
    const browser = new Jar();
    const other = new Jar();
    await attempt(config, browser, { password: "wonderland" });
    await attempt(config, other, { password: "wonderland" });
    authorize.mockClear();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await attempt(config, browser));
    // The strict rule, not the generous one of unknown clients: five free, the sixth starts a wait.
    expect(authorize).toHaveBeenCalledTimes(6);
    expect(statuses.slice(6).every((status) => status === 429)).toBe(true);
    expect(await attempt(config, browser, { password: "wonderland" })).toBe(429);
    // The user's other browser has a device of its own; strangers' backoff is untouched too.
    expect(await attempt(config, other, { password: "wonderland" })).toBe(200);
    expect(await attempt(config, new Jar(), { password: "wonderland" })).toBe(200);
  });

  test("a device cookie of another account counts for nothing on this one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config, authorize } = world();
    const mallory = new Jar();
    expect(await attempt(config, mallory, { username: "mallory", password: "evil" })).toBe(200);
    authorize.mockClear();
    for (let i = 0; i < 60; i++) await attempt(config, mallory);
    // Counted on alice's shared backoff (50 free for unknown clients), not on a device of its own.
    expect(authorize).toHaveBeenCalledTimes(51);
    expect(await attempt(config, new Jar(), { password: "wonderland" })).toBe(429);
  });

  test("one browser remembers several accounts; a tampered cookie is a stranger's", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { config } = world();
    const browser = new Jar();
    await attempt(config, browser, { password: "wonderland" });
    await attempt(config, browser, { username: "mallory", password: "evil" });
    const tampered = new Jar();
    const value = browser.cookies.get(DEVICE)!;
    // Another device id under the same seals: every entry is sealed to its device.
    const flipped = value[0] === "a" ? "b" : "a";
    tampered.cookies.set(DEVICE, `${flipped}${value.slice(1)}`);
    for (let i = 0; i < 51; i++) await attempt(config, new Jar());
    expect(await attempt(config, tampered, { password: "wonderland" })).toBe(429);
    // A seal with one character changed is no seal either.
    const single = new Jar();
    await attempt(config, single, { username: "mallory", password: "evil" });
    await attempt(config, single, { password: "wonderland" });
    const sealed = single.cookies.get(DEVICE)!;
    const resealed = new Jar();
    resealed.cookies.set(DEVICE, `${sealed.slice(0, -1)}${sealed.at(-1) === "A" ? "B" : "A"}`);
    expect(await attempt(config, resealed, { password: "wonderland" })).toBe(429);
    // Alice's entry survived Mallory's sign-in in the same browser.
    expect(await attempt(config, browser, { password: "wonderland" })).toBe(200);
  });

  test("a device cookie written under a retired secret still counts after rotation", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = MemoryRateLimitStore({ now: () => Date.now() });
    const before = world({ rateLimit: { store } }).config;
    const browser = new Jar();
    await attempt(before, browser, { password: "wonderland" });
    const after = world({ secret: ["a-brand-new-secret-0123456789abcdef", SECRET] }).config;
    after.rateLimit = { store };
    for (let i = 0; i < 51; i++) await attempt(after, new Jar());
    expect(await attempt(after, new Jar(), { password: "wonderland" })).toBe(429);
    expect(await attempt(after, browser, { password: "wonderland" })).toBe(200);
  });

  test("the cookie: HttpOnly, SameSite=Lax, a year long, __Secure- and Secure over https; no account in it", async () => {
    const { config } = world();
    const jar = new Jar();
    const token = await csrfToken(config, jar, "https://app.example");
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: token, username: "alice", password: "wonderland" },
      origin: "https://app.example",
    });
    const cookie = setCookies(response).get(`__Secure-${DEVICE}`);
    expect(cookie).toBeDefined();
    expect(cookie!.raw).toMatch(/; Max-Age=31536000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    for (const secret of ["alice", alice.email, SECRET])
      expect(cookie!.value).not.toContain(secret);
    // Over plain http (development) the name has no prefix and the cookie is not Secure.
    const plain = new Jar();
    await attempt(config, plain, { password: "wonderland" });
    expect(plain.cookies.has(DEVICE)).toBe(true);
  });

  test("no device cookie when the backoff is off, or the sign-in fails", async () => {
    const off = world({ rateLimit: { credentials: { failures: false } } }).config;
    const jar = new Jar();
    expect(await attempt(off, jar, { password: "wonderland" })).toBe(200);
    expect(jar.cookies.has(DEVICE)).toBe(false);
    const { config } = world();
    const failed = new Jar();
    await attempt(config, failed);
    expect(failed.cookies.has(DEVICE)).toBe(false);
    // A form without an account field: nothing to remember the browser for.
    const codeOnly: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      trustedProxies: 1,
      logger: recordingLogger(),
      providers: [
        Credentials({
          credentials: { code: { type: "password" } },
          authorize: () => ({ ...alice }),
        }),
      ],
    };
    const jar2 = new Jar();
    const csrf = await csrfToken(codeOnly, jar2);
    const response = await send(codeOnly, jar2, "/auth/callback/credentials", {
      form: { csrfToken: csrf, code: "123456" },
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(response.status).toBe(302);
    expect(jar2.cookies.has(DEVICE)).toBe(false);
  });
});
