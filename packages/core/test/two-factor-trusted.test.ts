/**
 * Trusted browsers through `Auth()`: "don't ask again on this browser for 30 days" at the
 * challenge gives the browser a cookie with which the next sign-in of the same user skips the
 * second factor. Written as the attacker too: the cookie moved into another user's sign-in, kept
 * past a password reset or a change, past turning two-factor off and on, tampered with or made
 * with another secret, opens nothing; each browser can be forgotten, and the list shows no
 * address, no secret and no cookie.
 */
import TwoFactor, { resetTwoFactor } from "@gatehousejs/core/two-factor";
import { describe, expect, test } from "vitest";
import { parseState } from "../src/lib/features/two-factor/store.js";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { encode } from "../src/lib/jwt.js";
import { csrfToken, Jar, ORIGIN, SECRET, send, setCookies } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";

const OWNER = "owner@example.com";
const OTHER = "other@example.com";
const CHALLENGE = `${ORIGIN}/auth/two-factor/challenge`;
const SESSION = "authjs.session-token";
const TRUST = "gatehouse.two-factor-trust";
const FIREFOX =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0";

function world(options: Parameters<typeof passwordWorld>[0] = {}) {
  const w = passwordWorld({ ...options, config: { twoFactor: TwoFactor(), ...options.config } });
  const post = async (
    jar: Jar,
    path: string,
    body: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) =>
    send(w.config, jar, `/auth/${path}`, {
      json: { csrfToken: await csrfToken(w.config, jar), ...body },
      headers,
    });
  const code = (secret: string, offset = 0) => totpCode(secret, totpStep() + offset);

  /** Signs `email` up, in, and enrols; returns the enrolling browser, secret and backup codes. */
  async function enrolled(email = OWNER) {
    await w.verifiedUser(email);
    const jar = new Jar();
    await w.signIn(jar, email);
    const started = await post(jar, "two-factor/enroll");
    const { secret } = (await started.json()) as { secret: string };
    const confirmed = await post(jar, "two-factor/confirm", { code: await code(secret) });
    expect(confirmed.status).toBe(200);
    const { backupCodes } = (await confirmed.json()) as { backupCodes: string[] };
    return { jar, secret, backupCodes };
  }

  /** Signs in with the password in `jar` (its session, if any, gone first): the response. */
  async function signInAgain(jar: Jar, email = OWNER, password = PASSWORD) {
    jar.cookies.delete(SESSION);
    return w.signIn(jar, email, password);
  }

  /** Signs in in `jar` and answers the challenge with `proof` and "don't ask again". */
  async function trusted(
    jar: Jar,
    proof: { code: string } | { backupCode: string },
    email = OWNER,
    headers: Record<string, string> = {},
  ) {
    const first = await signInAgain(jar, email);
    expect(first.headers.get("location")).toBe(CHALLENGE);
    const done = await post(jar, "two-factor/challenge", { ...proof, trustBrowser: "1" }, headers);
    expect(done.status).toBe(302);
    expect(jar.cookies.has(TRUST)).toBe(true);
    return done;
  }

  /** GET /two-factor as JSON in `jar`. */
  async function settings(jar: Jar, headers: Record<string, string> = {}) {
    const response = await send(w.config, jar, "/auth/two-factor", {
      headers: { accept: "application/json", ...headers },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      enabled: boolean;
      trustedBrowsers: {
        id: string;
        client: string;
        createdAt: string;
        expiresAt: string;
        current: boolean;
      }[];
    };
  }

  return { ...w, post, code, enrolled, signInAgain, trusted, settings };
}

/** Whether a sign-in in `jar` skipped the challenge (and signed in). */
async function skipped(w: ReturnType<typeof world>, jar: Jar, email = OWNER) {
  const response = await w.signInAgain(jar, email);
  return response.headers.get("location") !== CHALLENGE && (await w.signedInAs(jar)) === email;
}

describe("don't ask again on this browser", () => {
  test("the page offers it; the next sign-in in that browser skips the challenge, another browser is asked", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const browser = new Jar();
    await w.signInAgain(browser);
    const page = await send(w.config, browser, "/auth/two-factor/challenge");
    const html = await page.text();
    expect(html).toMatch(
      /<input id="two-factor-trust" name="trustBrowser" type="checkbox" value="1">/,
    );
    expect(html).toContain("Don't ask again on this browser for 30 days");

    // A form post, as the page sends it.
    const done = await send(w.config, browser, "/auth/two-factor/challenge", {
      form: {
        csrfToken: await csrfToken(w.config, browser),
        code: await w.code(secret, 1),
        trustBrowser: "1",
      },
    });
    expect(done.status).toBe(302);
    const cookie = setCookies(done).get(TRUST);
    expect(cookie?.raw).toMatch(/Max-Age=2592000/);
    expect(cookie?.raw).toMatch(/HttpOnly/);
    expect(cookie?.raw).toMatch(/SameSite=Lax/);
    expect(await w.signedInAs(browser)).toBe(OWNER);

    expect(await skipped(w, browser)).toBe(true);
    expect(await skipped(w, browser)).toBe(true);
    const elsewhere = await w.signInAgain(new Jar());
    expect(elsewhere.headers.get("location")).toBe(CHALLENGE);

    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const types = (await w.securityLog.list(user.id, { limit: 50 })).map((e) => e.type);
    expect(types.filter((type) => type === "trustedBrowserAdded")).toHaveLength(1);
  });

  test("without the box ticked no cookie is set and the next sign-in is asked", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const browser = new Jar();
    await w.signInAgain(browser);
    const done = await w.post(browser, "two-factor/challenge", { code: await w.code(secret, 1) });
    expect(done.status).toBe(302);
    expect(browser.cookies.has(TRUST)).toBe(false);
    expect((await w.signInAgain(browser)).headers.get("location")).toBe(CHALLENGE);
  });

  test("a wrong code with the box ticked trusts nothing", async () => {
    const w = world();
    const { secret, jar } = await w.enrolled();
    const browser = new Jar();
    await w.signInAgain(browser);
    const right = await w.code(secret, 1);
    const wrong = right === "123456" ? "654321" : "123456";
    const refused = await w.post(browser, "two-factor/challenge", {
      code: wrong,
      trustBrowser: "1",
    });
    expect(refused.status).toBe(400);
    expect(browser.cookies.has(TRUST)).toBe(false);
    expect((await w.settings(jar)).trustedBrowsers).toEqual([]);
  });
});

describe("what the cookie cannot do", () => {
  test("moved into another user's sign-in, it does not skip theirs", async () => {
    const w = world();
    const owner = await w.enrolled(OWNER);
    await w.enrolled(OTHER);
    const browser = new Jar();
    await w.trusted(browser, { code: await w.code(owner.secret, 1) }, OWNER);
    // The same browser, or a thief's with the cookie: the other user is still asked.
    const thief = new Jar();
    thief.cookies.set(TRUST, browser.cookies.get(TRUST)!);
    expect((await w.signInAgain(thief, OTHER)).headers.get("location")).toBe(CHALLENGE);
    expect((await w.signInAgain(browser, OTHER)).headers.get("location")).toBe(CHALLENGE);
    expect(await w.signedInAs(thief)).toBeNull();
  });

  test("tampered with, or made with another secret, it is ignored", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const browser = new Jar();
    await w.trusted(browser, { code: await w.code(secret, 1) });
    const value = browser.cookies.get(TRUST)!;
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const row = await w.adapter.getAccount(user.id, "gatehouse.totp");
    const state = parseState(row?.session_state);
    const entry = state.trusted[0]!;

    const middle = Math.floor(value.length / 2);
    const flipped = value[middle] === "A" ? "B" : "A";
    const forged = await encode({
      token: { u: user.id, t: entry.id, g: state.generation },
      secret: "another-secret-with-enough-entropy-9876543210",
      salt: TRUST,
    });
    for (const bad of [`${value.slice(0, middle)}${flipped}${value.slice(middle + 1)}`, forged]) {
      const jar = new Jar();
      jar.cookies.set(TRUST, bad);
      const response = await w.signInAgain(jar);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(CHALLENGE);
    }
    // The right secret with the same claims would open it: what failed was the seal.
    const genuine = await encode({
      token: { u: user.id, t: entry.id, g: state.generation },
      secret: SECRET,
      salt: TRUST,
    });
    const jar = new Jar();
    jar.cookies.set(TRUST, genuine);
    expect(await skipped(w, jar)).toBe(true);
  });

  test("a password reset ends it", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const browser = new Jar();
    await w.trusted(browser, { code: await w.code(secret, 1) });
    expect(await skipped(w, browser)).toBe(true);

    await w.requestReset(new Jar(), OWNER);
    const link = new URL(w.lastMail(OWNER, "resetPassword").url);
    const { response } = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
    // The reset's own sign-in asks for the second factor too.
    expect(response.headers.get("location")).toBe(CHALLENGE);

    const after = await w.signInAgain(browser, OWNER, OTHER_PASSWORD);
    expect(after.headers.get("location")).toBe(CHALLENGE);
    expect(await w.signedInAs(browser)).toBeNull();
  });

  test("a password change ends it, in every browser", async () => {
    const w = world();
    const { secret, jar } = await w.enrolled();
    const browser = new Jar();
    await w.trusted(browser, { code: await w.code(secret, 1) });
    const changed = await w.changePassword(jar, PASSWORD, OTHER_PASSWORD, true);
    expect(changed.status).toBe(200);
    const after = await w.signInAgain(browser, OWNER, OTHER_PASSWORD);
    expect(after.headers.get("location")).toBe(CHALLENGE);
    expect((await w.settings(jar)).trustedBrowsers).toEqual([]);
  });

  test("turning two-factor off and on again ends it", async () => {
    const w = world();
    const { jar, backupCodes } = await w.enrolled();
    const browser = new Jar();
    await w.trusted(browser, { backupCode: backupCodes[1]! });
    const value = browser.cookies.get(TRUST)!;
    const off = await w.post(jar, "two-factor/disable", { backupCode: backupCodes[0] });
    expect(off.status).toBe(200);
    // Enrol again (the enrolling browser signed in moments ago).
    const started = await w.post(jar, "two-factor/enroll");
    const { secret: fresh } = (await started.json()) as { secret: string };
    const again = await w.post(jar, "two-factor/confirm", { code: await w.code(fresh, 1) });
    expect(await again.json()).toMatchObject({ status: "twoFactorEnabled" });
    browser.cookies.set(TRUST, value);
    expect((await w.signInAgain(browser)).headers.get("location")).toBe(CHALLENGE);
  });
});

test("the operator's reset of the second factor ends it", async () => {
  const w = world();
  const { jar, backupCodes } = await w.enrolled();
  const browser = new Jar();
  await w.trusted(browser, { backupCode: backupCodes[1]! });
  const value = browser.cookies.get(TRUST)!;
  const user = (await w.adapter.getUserByEmail(OWNER))!;
  expect(await resetTwoFactor(w.config, user.id)).toBe(true);
  const started = await w.post(jar, "two-factor/enroll");
  const { secret } = (await started.json()) as { secret: string };
  const again = await w.post(jar, "two-factor/confirm", { code: await w.code(secret, 1) });
  expect(await again.json()).toMatchObject({ status: "twoFactorEnabled" });
  browser.cookies.set(TRUST, value);
  expect((await w.signInAgain(browser)).headers.get("location")).toBe(CHALLENGE);
});

describe("the list of trusted browsers", () => {
  test("lists each browser, marks this one, and forgets one or all", async () => {
    const w = world();
    const { jar, secret, backupCodes } = await w.enrolled();
    const laptop = new Jar();
    const phone = new Jar();
    await w.trusted(laptop, { code: await w.code(secret, 1) }, OWNER, { "user-agent": FIREFOX });
    await w.trusted(phone, { backupCode: backupCodes[0]! });

    const listed = await w.settings(laptop);
    expect(listed.trustedBrowsers).toHaveLength(2);
    const [newest, oldest] = listed.trustedBrowsers;
    expect(newest).toMatchObject({ client: "Unknown client", current: false });
    expect(oldest).toMatchObject({ client: "Firefox 133 on macOS", current: true });
    const days = (Date.parse(oldest!.expiresAt) - Date.parse(oldest!.createdAt)) / 86_400_000;
    expect(days).toBe(30);
    expect((await w.settings(jar)).trustedBrowsers.every((b) => !b.current)).toBe(true);

    // The page: one "Forget" per browser, and "Forget all".
    const page = await (await send(w.config, laptop, "/auth/two-factor")).text();
    expect(page).toContain(`data-trusted-browser="${newest!.id}"`);
    expect(page.match(/>Forget<\/button>/g)).toHaveLength(2);
    expect(page).toContain(">Forget all</button>");
    expect(page).toContain("(this browser)");

    // Forget the phone, from the laptop: the phone is asked again, the laptop is not.
    const forgot = await w.post(laptop, "two-factor/forget-browser", { id: newest!.id });
    expect(forgot.status).toBe(200);
    expect(await forgot.json()).toMatchObject({
      status: "trustedBrowserForgotten",
      trustedBrowsers: [{ id: oldest!.id, current: true }],
    });
    expect(laptop.cookies.has(TRUST)).toBe(true);
    expect((await w.signInAgain(phone)).headers.get("location")).toBe(CHALLENGE);
    expect(await skipped(w, laptop)).toBe(true);

    // Forget all: this browser's cookie goes too, and it is asked again.
    const all = await w.post(laptop, "two-factor/forget-browser", { all: true });
    expect(all.status).toBe(200);
    expect(setCookies(all).get(TRUST)?.raw).toMatch(/Max-Age=0/);
    expect((await w.settings(laptop)).trustedBrowsers).toEqual([]);
    expect((await w.signInAgain(laptop)).headers.get("location")).toBe(CHALLENGE);
  });

  test("forget-all kills a cookie even once it is dropped from the list", async () => {
    const w = world();
    const { jar, secret } = await w.enrolled();
    const browser = new Jar();
    await w.trusted(browser, { code: await w.code(secret, 1) });
    const value = browser.cookies.get(TRUST)!;
    expect((await w.post(jar, "two-factor/forget-browser", { all: "1" })).status).toBe(200);
    // The browser never saw the answer; its cookie is still dead.
    browser.cookies.set(TRUST, value);
    expect((await w.signInAgain(browser)).headers.get("location")).toBe(CHALLENGE);
  });

  test("a forget names a listed browser, with the CSRF token, signed in", async () => {
    const w = world();
    const { jar } = await w.enrolled();
    const missing = await w.post(jar, "two-factor/forget-browser", {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "InvalidTrustedBrowser" });
    const odd = await w.post(jar, "two-factor/forget-browser", { id: { $ne: "" } });
    expect(odd.status).toBe(400);
    const unknown = await w.post(jar, "two-factor/forget-browser", { id: "0".repeat(32) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "UnknownTrustedBrowser" });
    const anonymous = await w.post(new Jar(), "two-factor/forget-browser", { all: true });
    expect(anonymous.status).toBe(401);
    const noCsrf = await send(w.config, jar, "/auth/two-factor/forget-browser", {
      json: { all: true },
    });
    expect(noCsrf.status).toBeGreaterThanOrEqual(400);
    expect(noCsrf.status).toBeLessThan(500);
  });

  test("the list shows no address, no secret, no generation and no cookie value", async () => {
    const w = world({ config: { twoFactor: TwoFactor(), trustedProxies: 1 } });
    const { jar, secret } = await w.enrolled();
    const browser = new Jar();
    const ip = "203.0.113.77";
    const from = { "x-forwarded-for": ip, "user-agent": FIREFOX };
    await w.trusted(browser, { code: await w.code(secret, 1) }, OWNER, from);
    const value = browser.cookies.get(TRUST)!;
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const row = await w.adapter.getAccount(user.id, "gatehouse.totp");
    const { generation } = parseState(row?.session_state);
    expect(generation).toMatch(/^[0-9a-f]{16}$/);
    // The row itself keeps no address either.
    expect(JSON.stringify(row)).not.toContain("203.0.113");

    const json = JSON.stringify(await w.settings(browser, from));
    const html = await (
      await send(w.config, browser, "/auth/two-factor", { headers: from })
    ).text();
    for (const seen of [json, html, JSON.stringify(await w.settings(jar))]) {
      expect(seen).toContain("Firefox 133 on macOS");
      for (const hidden of ["203.0.113", SECRET, secret, generation, value]) {
        expect(seen).not.toContain(hidden);
      }
    }
  });
});

test("a row written before trusted browsers is read as its completion time", () => {
  expect(parseState("1764000000000")).toEqual({
    completedAt: 1764000000000,
    generation: "",
    trusted: [],
  });
  expect(parseState(null)).toEqual({ completedAt: 0, generation: "", trusted: [] });
  expect(parseState('{"c":5,"g":"ab","t":[{"id":"x"}]}')).toEqual({
    completedAt: 5,
    generation: "ab",
    trusted: [],
  });
});
