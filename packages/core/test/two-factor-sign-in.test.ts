/**
 * Two-factor sign-in through `Auth()`, written as the user and as the attacker: enrolment becomes
 * active only with a first correct code; after the password a user with a second factor gets no
 * session, only the challenge; a code is accepted once (the enrolment's, one code in two
 * browsers); a challenge cookie moved alone to another browser, or one older than a finished
 * challenge, opens nothing; wrong codes end the challenge and are counted before they are checked;
 * backup codes work once; turning it off needs a code.
 */

import { getSession, requireRecentAuth } from "@gatehousejs/core";
import Passkey from "@gatehousejs/core/providers/passkey";
import TwoFactor, { resetTwoFactor } from "@gatehousejs/core/two-factor";
import { describe, expect, test } from "vitest";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";
import { SoftAuthenticator } from "./support/authenticator.js";

const OWNER = "owner@example.com";
const CHALLENGE = "http://localhost:3000/auth/two-factor/challenge";
const SESSION = "authjs.session-token";

function world(options: Parameters<typeof passwordWorld>[0] = {}) {
  const w = passwordWorld({ ...options, config: { twoFactor: TwoFactor(), ...options.config } });
  const post = async (jar: Jar, path: string, body: Record<string, unknown> = {}) =>
    send(w.config, jar, `/auth/${path}`, {
      json: { csrfToken: await csrfToken(w.config, jar), ...body },
    });
  /** Signs in with the password and enrols; returns the secret and the backup codes. */
  async function enrolled(jar = new Jar()) {
    await w.verifiedUser(OWNER);
    await w.signIn(jar, OWNER);
    const started = await post(jar, "two-factor/enroll");
    expect(started.status).toBe(200);
    const { secret, uri, qrSvg } = (await started.json()) as Record<string, string>;
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(qrSvg).toMatch(/^<svg/);
    const code = await totpCode(secret!, totpStep());
    const confirmed = await post(jar, "two-factor/confirm", { code });
    expect(confirmed.status).toBe(200);
    const { backupCodes } = (await confirmed.json()) as { backupCodes: string[] };
    return { jar, secret: secret!, code, backupCodes };
  }
  /** Signs in with the password in a new browser: the challenge. */
  async function challenged(jar = new Jar()) {
    const response = await w.signIn(jar, OWNER);
    return { jar, response };
  }
  const code = (secret: string, offset = 0) => totpCode(secret, totpStep() + offset);
  return { ...w, post, enrolled, challenged, code };
}

describe("enrolment", () => {
  test("is pending until a first correct code; the secret is stored sealed", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    const jar = new Jar();
    await w.signIn(jar, OWNER);
    const started = await w.post(jar, "two-factor/enroll");
    const { secret } = (await started.json()) as { secret: string };
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const row = await w.adapter.getAccount(user.id, "gatehouse.totp");
    expect(row?.token_type).toBe("pending");
    expect(JSON.stringify(row)).not.toContain(secret);
    // Pending: a sign-in is not asked for a code.
    const before = await w.challenged();
    expect(before.response.headers.get("location")).not.toBe(CHALLENGE);

    const wrong = await w.post(jar, "two-factor/confirm", {
      code: "000000" === (await w.code(secret)) ? "111111" : "000000",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "WrongCode" });
    const right = await w.post(jar, "two-factor/confirm", { code: await w.code(secret) });
    expect(right.status).toBe(200);
    const { backupCodes } = (await right.json()) as { backupCodes: string[] };
    expect(backupCodes).toHaveLength(10);
    const stored = await w.adapter.getAccount(user.id, "gatehouse.totp");
    expect(stored?.token_type).toBe("enabled");
    for (const code of backupCodes) expect(JSON.stringify(stored)).not.toContain(code);
  });

  test("needs a session, and a recent sign-in", async () => {
    const w = world();
    const anonymous = await w.post(new Jar(), "two-factor/enroll");
    expect(anonymous.status).toBe(401);
  });
});

describe("signing in with a second factor", () => {
  test("the password gives no session, only the challenge; the code gives the session", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const { jar, response } = await w.challenged();
    expect(response.headers.get("location")).toBe(CHALLENGE);
    expect(jar.cookies.has(SESSION)).toBe(false);
    expect(await w.signedInAs(jar)).toBeNull();

    const page = await send(w.config, jar, "/auth/two-factor/challenge");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('autocomplete="one-time-code"');

    const done = await w.post(jar, "two-factor/challenge", { code: await w.code(secret, 1) });
    expect(done.status).toBe(302);
    expect(jar.cookies.has(SESSION)).toBe(true);
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("the enrolment's code does not open a sign-in; one code opens one browser", async () => {
    const w = world();
    const { secret, code } = await w.enrolled();
    const a = await w.challenged();
    const reused = await w.post(a.jar, "two-factor/challenge", { code });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "WrongCode" });

    const next = await w.code(secret, 1);
    const b = await w.challenged();
    const first = await w.post(a.jar, "two-factor/challenge", { code: next });
    expect(first.status).toBe(302);
    const second = await w.post(b.jar, "two-factor/challenge", { code: next });
    expect(second.status).toBe(400);
    expect(b.jar.cookies.has(SESSION)).toBe(false);
  });

  test("the same code sent twenty times at once opens one session", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const jars = await Promise.all(Array.from({ length: 20 }, () => w.challenged()));
    const next = await w.code(secret, 1);
    const answers = await Promise.all(
      jars.map(({ jar }) => w.post(jar, "two-factor/challenge", { code: next })),
    );
    expect(answers.filter((r) => r.status === 302)).toHaveLength(1);
  });

  test("a challenge cookie moved alone to another browser opens nothing", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const { jar } = await w.challenged();
    const thief = new Jar();
    for (const [name, value] of jar.cookies) {
      if (name.includes("challenge") && !name.includes("bind")) thief.cookies.set(name, value);
    }
    expect(thief.cookies.size).toBeGreaterThan(0);
    const stolen = await w.post(thief, "two-factor/challenge", { code: await w.code(secret, 1) });
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ error: "TwoFactorChallengeExpired" });
    expect(thief.cookies.has(SESSION)).toBe(false);
  });

  test("a challenge older than one the user finished is over", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const old = await w.challenged();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const fresh = await w.challenged();
    expect(
      (await w.post(fresh.jar, "two-factor/challenge", { code: await w.code(secret, 1) })).status,
    ).toBe(302);
    const late = await w.post(old.jar, "two-factor/challenge", { code: await w.code(secret, 0) });
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: "TwoFactorChallengeExpired" });
  });

  test("five wrong codes end the challenge; a burst gets no more checks than that", async () => {
    const w = world();
    const { secret } = await w.enrolled();
    const { jar } = await w.challenged();
    const right = await w.code(secret, 1);
    const wrong = right === "123456" ? "654321" : "123456";
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => w.post(jar, "two-factor/challenge", { code: wrong })),
    );
    const errors = await Promise.all(
      burst.map(async (r) => ((await r.json()) as { error: string }).error),
    );
    expect(errors.filter((e) => e === "WrongCode")).toHaveLength(5);
    expect(errors.filter((e) => e === "TwoFactorChallengeExpired")).toHaveLength(3);
    // The right code no longer helps this challenge.
    const late = await w.post(jar, "two-factor/challenge", { code: right });
    expect(late.status).toBe(400);
    expect(jar.cookies.has(SESSION)).toBe(false);
    // The user, in their own browser, is not locked out.
    const own = await w.challenged();
    expect((await w.post(own.jar, "two-factor/challenge", { code: right })).status).toBe(302);
  });

  test("a backup code works once", async () => {
    const w = world();
    const { backupCodes } = await w.enrolled();
    const code = backupCodes[3]!;
    const a = await w.challenged();
    expect(
      (await w.post(a.jar, "two-factor/challenge", { backupCode: code.toUpperCase() })).status,
    ).toBe(302);
    const b = await w.challenged();
    const again = await w.post(b.jar, "two-factor/challenge", { backupCode: code });
    expect(again.status).toBe(400);
    const status = await send(w.config, a.jar, "/auth/two-factor", {
      headers: { accept: "application/json" },
    });
    expect(await status.json()).toEqual({ enabled: true, backupCodesLeft: 9, trustedBrowsers: [] });
  });

  test("no other endpoint yields a session while the challenge is pending", async () => {
    const w = world();
    await w.enrolled();
    const { jar } = await w.challenged();
    expect(await w.signedInAs(jar)).toBeNull();
    const request = new Request(`${ORIGIN}/`, { headers: { cookie: jar.header() } });
    expect(await getSession(request, w.config)).toBeNull();
    const update = await send(w.config, jar, "/auth/session", {
      json: { csrfToken: await csrfToken(w.config, jar), data: {} },
    });
    expect(update.headers.get("set-cookie") ?? "").not.toContain(SESSION);
    expect((await w.post(jar, "two-factor/enroll")).status).toBe(401);
    expect(jar.cookies.has(SESSION)).toBe(false);
  });
});

describe("wrong codes from one client address", () => {
  test("are limited per user and address, counted before the check; the owner elsewhere is not locked out", async () => {
    const w = world({ config: { twoFactor: TwoFactor(), trustedProxies: 1 } });
    const { secret } = await w.enrolled();
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    const attacker = async () => {
      const jar = new Jar();
      await send(w.config, jar, "/auth/callback/password", {
        form: { csrfToken: await csrfToken(w.config, jar), email: OWNER, password: PASSWORD },
        headers: from("203.0.113.9"),
      });
      return jar;
    };
    const right = await w.code(secret, 1);
    const wrong = right === "123456" ? "654321" : "123456";
    const statuses: number[] = [];
    // Three challenges of five tries each fill the count (15); the next try is refused unchecked.
    for (let round = 0; round < 4; round++) {
      const jar = await attacker();
      const answers = await Promise.all(
        Array.from({ length: 5 }, async () =>
          send(w.config, jar, "/auth/two-factor/challenge", {
            json: { csrfToken: await csrfToken(w.config, jar), code: round === 3 ? right : wrong },
            headers: from("203.0.113.9"),
          }),
        ),
      );
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses.slice(0, 15).every((s) => s === 400)).toBe(true);
    // Even the right code is not checked past the limit.
    expect(statuses.slice(15)).toEqual([429, 429, 429, 429, 429]);

    const owner = new Jar();
    await send(w.config, owner, "/auth/callback/password", {
      form: { csrfToken: await csrfToken(w.config, owner), email: OWNER, password: PASSWORD },
      headers: from("198.51.100.4"),
    });
    const done = await send(w.config, owner, "/auth/two-factor/challenge", {
      json: { csrfToken: await csrfToken(w.config, owner), code: right },
      headers: from("198.51.100.4"),
    });
    expect(done.status).toBe(302);
  });
});

describe("turning it off", () => {
  test("needs a code; afterwards the password alone signs in", async () => {
    const w = world();
    const { jar, secret } = await w.enrolled();
    const refused = await w.post(jar, "two-factor/disable", { code: "12345" });
    expect(refused.status).toBe(400);
    const off = await w.post(jar, "two-factor/disable", { code: await w.code(secret, 1) });
    expect(off.status).toBe(200);
    const { response } = await w.challenged();
    expect(response.headers.get("location")).not.toBe(CHALLENGE);
  });
});

describe("the record of it", () => {
  test("the security log records enabling, a backup code, new codes, disabling and a reset", async () => {
    const w = world();
    const { jar, secret, backupCodes } = await w.enrolled();
    const a = await w.challenged();
    await w.post(a.jar, "two-factor/challenge", { backupCode: backupCodes[0] });
    await w.post(jar, "two-factor/backup-codes", { code: await w.code(secret, 1) });
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    expect(await resetTwoFactor(w.config, user.id)).toBe(true);
    expect(await resetTwoFactor(w.config, user.id)).toBe(false);
    const types = (await w.securityLog.list(user.id, { limit: 50 })).map((e) => e.type);
    for (const type of [
      "twoFactorEnabled",
      "backupCodeUsed",
      "backupCodesRegenerated",
      "twoFactorReset",
    ]) {
      expect(types).toContain(type);
    }
    // After the operator's reset the password alone signs in.
    const { response } = await w.challenged();
    expect(response.headers.get("location")).not.toBe(CHALLENGE);
  });

  test("no secret, code or backup code reaches a log line, an event or the security log", async () => {
    const w = world();
    const { secret, backupCodes, code } = await w.enrolled();
    const a = await w.challenged();
    await w.post(a.jar, "two-factor/challenge", { code: "000000" });
    await w.post(a.jar, "two-factor/challenge", { backupCode: backupCodes[1] });
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    const seen = JSON.stringify([
      (w.logger.warn as unknown as { mock: { calls: unknown[] } }).mock.calls,
      (w.logger.error as unknown as { mock: { calls: unknown[] } }).mock.calls,
      w.events,
      await w.securityLog.list(user.id, { limit: 50 }),
    ]);
    for (const value of [secret, code, ...backupCodes]) expect(seen).not.toContain(value);
  });
});

test("the password alone still signs in a user who never enrolled", async () => {
  const w = world();
  await w.verifiedUser(OWNER);
  const jar = new Jar();
  const response = await w.signIn(jar, OWNER, PASSWORD);
  expect(response.headers.get("location")).not.toBe(CHALLENGE);
  expect(await w.signedInAs(jar)).toBe(OWNER);
});

test("the settings page leads back to the site, to the callback URL it was opened with", async () => {
  const w = world();
  await w.verifiedUser(OWNER);
  const jar = new Jar();
  await w.signIn(jar, OWNER);
  const page = await send(w.config, jar, "/auth/two-factor?callbackUrl=%2Faccount");
  const html = await page.text();
  expect(html).toContain('href="http://localhost:3000/account">Back to the site</a>');
});

describe("a passkey instead of a code", () => {
  test("the challenge page offers the account's passkey (sign-in only); it signs in without a code, as two factors", async () => {
    const w = world({
      providers: [Passkey()],
      config: { twoFactor: TwoFactor(), experimental: { enableWebAuthn: true } },
    });
    const { jar } = await w.enrolled();
    // The signed-in owner adds a passkey to the account.
    const device = new SoftAuthenticator();
    const registration = await send(
      w.config,
      jar,
      "/auth/webauthn-options/passkey?action=register",
    );
    const { options } = (await registration.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    await send(w.config, jar, "/auth/callback/passkey", {
      form: { action: "register", data: JSON.stringify(device.register(options, ORIGIN)) },
    });

    const { jar: other } = await w.challenged();
    const page = await (await send(w.config, other, "/auth/two-factor/challenge")).text();
    expect(page).toContain('<form id="passkey-form" method="post"');
    expect(page).toContain('"register":false');
    expect(await w.signedInAs(other)).toBeNull();

    const asked = await send(w.config, other, "/auth/webauthn-options/passkey");
    const { options: request } = (await asked.json()) as {
      options: Parameters<SoftAuthenticator["authenticate"]>[0];
    };
    const done = await send(w.config, other, "/auth/callback/passkey", {
      form: { action: "authenticate", data: JSON.stringify(device.authenticate(request, ORIGIN)) },
    });
    expect(done.headers.get("location")).not.toBe(CHALLENGE);
    expect(await w.signedInAs(other)).toBe(OWNER);
  });

  /** An owner with a second factor and a passkey, the passkey's device, and the world. */
  async function ownerWithPasskey() {
    const w = world({
      providers: [Passkey()],
      config: { twoFactor: TwoFactor(), experimental: { enableWebAuthn: true } },
    });
    const enrolled = await w.enrolled();
    const device = new SoftAuthenticator();
    const registration = await send(
      w.config,
      enrolled.jar,
      "/auth/webauthn-options/passkey?action=register",
    );
    const { options } = (await registration.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    await send(w.config, enrolled.jar, "/auth/callback/passkey", {
      form: { action: "register", data: JSON.stringify(device.register(options, ORIGIN)) },
    });
    /** Signs in with `key` in `jar`'s browser, as the challenge page's passkey form does. */
    const usePasskey = async (jar: Jar, key = device) => {
      const asked = await send(w.config, jar, "/auth/webauthn-options/passkey");
      const { options: request } = (await asked.json()) as {
        options: Parameters<SoftAuthenticator["authenticate"]>[0];
      };
      return send(w.config, jar, "/auth/callback/passkey", {
        form: { action: "authenticate", data: JSON.stringify(key.authenticate(request, ORIGIN)) },
      });
    };
    return { ...w, jar: enrolled.jar, secret: enrolled.secret, device, usePasskey };
  }

  const factorsOf = async (w: { config: Parameters<typeof requireRecentAuth>[1] }, jar: Jar) => {
    const request = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
    const answer = await requireRecentAuth(request, w.config);
    return answer.ok ? [...answer.factors].sort() : answer;
  };

  test("the passkey answers the waiting sign-in: the session proves the password and the passkey", async () => {
    const w = await ownerWithPasskey();
    const { jar } = await w.challenged();
    const done = await w.usePasskey(jar);
    expect(done.status).toBe(302);
    expect(await w.signedInAs(jar)).toBe(OWNER);
    // The password's factor is kept: this is the waiting sign-in, finished, not a new one.
    expect(await factorsOf(w, jar)).toEqual(["hwk", "pwd", "user"]);
    // The challenge cookies are gone.
    expect([...jar.cookies.keys()].some((name) => name.includes("sign-in"))).toBe(false);
  });

  test("a challenge older than one the passkey answered is over: its code no longer opens it", async () => {
    const w = await ownerWithPasskey();
    const older = await w.challenged();
    const newer = await w.challenged();
    await w.usePasskey(newer.jar);
    expect(await w.signedInAs(newer.jar)).toBe(OWNER);

    const late = await w.post(older.jar, "two-factor/challenge", {
      code: await w.code(w.secret, 1),
    });
    expect(await late.json()).toMatchObject({ error: "TwoFactorChallengeExpired" });
    expect(await w.signedInAs(older.jar)).toBeNull();
  });

  test("another user's passkey does not answer the owner's challenge", async () => {
    const w = await ownerWithPasskey();
    // Someone else registers a passkey of their own (a new user, signed out).
    const stranger = new SoftAuthenticator();
    const theirs = new Jar();
    const registration = await send(
      w.config,
      theirs,
      "/auth/webauthn-options/passkey?action=register",
    );
    const { options } = (await registration.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    await send(w.config, theirs, "/auth/callback/passkey", {
      form: { action: "register", data: JSON.stringify(stranger.register(options, ORIGIN)) },
    });
    const strangerId = (
      await getSession(
        new Request(`${ORIGIN}/`, { headers: { cookie: theirs.header() } }),
        w.config,
      )
    )?.user?.email;
    expect(strangerId).not.toBe(OWNER);

    const { jar } = await w.challenged();
    await w.usePasskey(jar, stranger);
    // The browser is signed in as the passkey's owner, by the passkey alone; the owner's
    // challenge is not answered.
    expect(await w.signedInAs(jar)).not.toBe(OWNER);
    expect(await factorsOf(w, jar)).toEqual(["hwk", "user"]);
  });

  test("without a passkey provider the page offers none", async () => {
    const w = world();
    await w.enrolled();
    const { jar } = await w.challenged();
    const page = await (await send(w.config, jar, "/auth/two-factor/challenge")).text();
    expect(page).not.toContain("Use a passkey");
  });
});

test("a stolen session cannot guess its way to turning two-factor off, even with the client address unknown", async () => {
  const w = world();
  const { jar, secret } = await w.enrolled();
  const right = await w.code(secret, 1);
  const wrong = right === "123456" ? "654321" : "123456";
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => w.post(jar, "two-factor/disable", { code: wrong })),
  );
  const statuses = answers.map((r) => r.status);
  // One try (the enrolment's confirm) was counted already: 14 more are checked, the rest refused.
  expect(statuses.filter((s) => s === 400)).toHaveLength(14);
  expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  // Past the limit even the right code is not checked.
  expect((await w.post(jar, "two-factor/disable", { code: right })).status).toBe(429);
  const status = await send(w.config, jar, "/auth/two-factor", {
    headers: { accept: "application/json" },
  });
  expect(await status.json()).toMatchObject({ enabled: true });
});

test("a plain twoFactor object is a configuration error naming TwoFactor()", async () => {
  const w = passwordWorld({ config: { twoFactor: {} } });
  const response = await send(w.config, new Jar(), "/auth/session");
  expect(response.status).toBe(500);
  const logged = JSON.stringify(
    (w.logger.error as unknown as { mock: { calls: unknown[][] } }).mock.calls.map((c) =>
      String((c[0] as Error)?.message),
    ),
  );
  expect(logged).toContain("TwoFactor() from @gatehousejs/core/two-factor");
});
