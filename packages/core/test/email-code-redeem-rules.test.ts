/**
 * Redeeming a one-time code, rule by rule, through `Auth()`: which count of tries the adapter may
 * answer, the rate-limit store's count when the adapter has none (one counter per browser and
 * code, kept for the code's whole life), the fifth try, a row gone or expired between the count
 * and the use, a forged or partial code cookie, a provider without codes, and the one log line
 * each refusal writes.
 */

import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig, EmailConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

const CODE_COOKIE = "gatehouse.email-code";
const VERIFY = `${ORIGIN}/auth/verify-request?provider=email&type=email`;
const WRONG = `${VERIFY}&error=Verification&code=wrong_code`;
const UNUSABLE = `${VERIFY}&error=Verification&code=code_unusable`;

afterEach(() => {
  vi.useRealTimers();
});

function world(
  adapterOf: (memory: ReturnType<typeof MemoryAdapter>) => Adapter = (memory) => memory,
  options: Partial<EmailConfig> = { code: true },
) {
  const memory = MemoryAdapter();
  const logger = recordingLogger();
  const mails: { code?: string }[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter: adapterOf(memory),
    providers: [
      Email({
        ...options,
        sendVerificationRequest: ({ code }) => {
          mails.push({ code });
        },
      }),
    ],
  };
  return { config, logger, mails };
}
type World = ReturnType<typeof world>;

/** Asks for a code in a fresh browser; returns the browser and the code mailed. */
async function ask(w: World, email = "alice@example.com") {
  const jar = new Jar();
  const form = { csrfToken: await csrfToken(w.config, jar), email };
  await send(w.config, jar, "/auth/signin/email", { form });
  return { jar, code: w.mails.at(-1)?.code ?? "" };
}

async function typeCode(w: World, jar: Jar, code: string) {
  return send(w.config, jar, "/auth/callback/email", {
    form: { csrfToken: await csrfToken(w.config, jar), code },
  });
}

const wrongFor = (code: string) => code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));

/** The Verification log lines (message only), in order. */
function refusals(w: World): string[] {
  return w.logger.warn.mock.calls.map(([kind, error]) => `${kind}: ${(error as Error).message}`);
}

function signedIn(response: Response): boolean {
  return response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="));
}

const withoutCount = (memory: ReturnType<typeof MemoryAdapter>): Adapter => {
  const { countVerificationTokenTry: _, ...rest } = memory;
  return rest;
};

describe("the adapter's count of tries", () => {
  test.each<[string, unknown]>([
    ["0", 0],
    ["6 (over the five tries)", 6],
    ["a number as text", "1"],
    ["null (the row is gone)", null],
  ])("an answer of %s makes the code unusable, even the right one", async (_, answer) => {
    const w = world((memory) => ({
      ...memory,
      countVerificationTokenTry: async () => answer as never,
    }));
    const { jar, code } = await ask(w);
    const response = await typeCode(w, jar, code);
    expect(response.headers.get("location")).toBe(UNUSABLE);
    expect(signedIn(response)).toBe(false);
    expect(refusals(w)).toEqual(["client-error: The sign-in code had too many tries, or is gone"]);
  });

  test("the adapter's count decides: at its fifth try a wrong code invalidates the code", async () => {
    const w = world((memory) => ({ ...memory, countVerificationTokenTry: async () => 5 }));
    const { jar, code } = await ask(w);
    expect((await typeCode(w, jar, wrongFor(code))).headers.get("location")).toBe(UNUSABLE);
    expect(refusals(w)).toEqual(["client-error: The last wrong sign-in code invalidated it"]);
  });

  test("a first try of 1 with the right code signs in", async () => {
    const w = world((memory) => ({ ...memory, countVerificationTokenTry: async () => 1 }));
    const { jar, code } = await ask(w);
    expect(signedIn(await typeCode(w, jar, code))).toBe(true);
  });
});

describe("tries counted in the rate-limit store (an adapter without a count)", () => {
  test("four wrong tries, then the right code on the fifth still signs in", async () => {
    const w = world(withoutCount);
    const { jar, code } = await ask(w);
    for (let i = 0; i < 4; i++) {
      expect((await typeCode(w, jar, wrongFor(code))).headers.get("location")).toBe(WRONG);
    }
    expect(signedIn(await typeCode(w, jar, code))).toBe(true);
    expect(refusals(w)).toEqual(Array(4).fill("client-error: The sign-in code is wrong"));
  });

  test("the fifth wrong try invalidates the code; a sixth try is refused as having too many", async () => {
    const w = world(withoutCount);
    const { jar, code } = await ask(w);
    const cookie = jar.cookies.get(CODE_COOKIE) ?? "";
    for (let i = 0; i < 5; i++) await typeCode(w, jar, wrongFor(code));
    jar.cookies.set(CODE_COOKIE, cookie);
    const sixth = await typeCode(w, jar, code);
    expect(sixth.headers.get("location")).toBe(UNUSABLE);
    expect(signedIn(sixth)).toBe(false);
    expect(refusals(w).slice(4)).toEqual([
      "client-error: The last wrong sign-in code invalidated it",
      "client-error: The sign-in code had too many tries, or is gone",
    ]);
  });

  test("the count lasts as long as the code, not one second", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const w = world(withoutCount);
    const { jar, code } = await ask(w);
    for (let i = 0; i < 4; i++) await typeCode(w, jar, wrongFor(code));
    vi.setSystemTime(Date.now() + 60_000);
    expect((await typeCode(w, jar, wrongFor(code))).headers.get("location")).toBe(UNUSABLE);
  });

  test("each browser's code has its own count", async () => {
    const w = world(withoutCount);
    const first = await ask(w, "alice@example.com");
    const second = await ask(w, "bob@example.com");
    for (let i = 0; i < 4; i++) await typeCode(w, first.jar, wrongFor(first.code));
    expect((await typeCode(w, second.jar, wrongFor(second.code))).headers.get("location")).toBe(
      WRONG,
    );
    expect(signedIn(await typeCode(w, second.jar, second.code))).toBe(true);
  });
});

describe("the code's row between the count and its use", () => {
  test("gone: the right code is refused, not an error", async () => {
    const w = world((memory) => ({
      ...memory,
      countVerificationTokenTry: async () => 1,
      useVerificationToken: async () => null,
    }));
    const { jar, code } = await ask(w);
    const response = await typeCode(w, jar, code);
    expect(response.headers.get("location")).toBe(UNUSABLE);
    expect(refusals(w)).toEqual([
      "client-error: The sign-in code was used, invalidated or expired",
    ]);
  });

  test("expired a moment ago: refused; ending at this very instant: still good", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    for (const [ago, good] of [
      [1, false],
      [0, true],
    ] as const) {
      const w = world((memory) => ({
        ...memory,
        countVerificationTokenTry: async () => 1,
        useVerificationToken: async (params) => {
          const row = await memory.useVerificationToken(params);
          return row && { ...row, expires: new Date(Date.now() - ago) };
        },
      }));
      const { jar, code } = await ask(w);
      expect(signedIn(await typeCode(w, jar, code))).toBe(good);
    }
  });
});

describe("the browser's code cookie", () => {
  async function sealed(token: Record<string, unknown>) {
    return encode({ token, secret: SECRET, salt: CODE_COOKIE, maxAge: 600 });
  }

  test.each<[string, string]>([
    ["no nonce", "n"],
    ["no address", "e"],
    ["no code hash", "h"],
    ["no link hash", "l"],
    ["no end time", "x"],
    ["another provider", "p"],
  ])("a sealed cookie with %s is no code at all", async (_, field) => {
    const w = world();
    const { jar, code } = await ask(w);
    const { decode } = await import("@gatehousejs/core/jwt");
    const claims = (await decode({
      token: jar.cookies.get(CODE_COOKIE) ?? "",
      secret: SECRET,
      salt: CODE_COOKIE,
    })) as Record<string, unknown>;
    const changed = { ...claims, [field]: field === "p" ? "other" : field === "x" ? "soon" : 7 };
    jar.cookies.set(CODE_COOKIE, await sealed(changed));
    const response = await typeCode(w, jar, code);
    expect(response.headers.get("location")).toBe(UNUSABLE);
    expect(refusals(w)).toEqual(["client-error: No sign-in code was asked for in this browser"]);
  });

  test("a browser without the cookie is refused, and no cookie is cleared", async () => {
    const w = world();
    const jar = new Jar();
    const response = await typeCode(w, jar, "12345678");
    expect(response.headers.get("location")).toBe(UNUSABLE);
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${CODE_COOKIE}=`))).toBe(
      false,
    );
  });

  test("a binding whose end has passed is refused as expired and its cookie cleared; one ending at this very instant still works", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { decode } = await import("@gatehousejs/core/jwt");
    for (const [ago, good] of [
      [1, false],
      [0, true],
    ] as const) {
      const w = world();
      const { jar, code } = await ask(w);
      const claims = (await decode({
        token: jar.cookies.get(CODE_COOKIE) ?? "",
        secret: SECRET,
        salt: CODE_COOKIE,
      })) as Record<string, unknown>;
      jar.cookies.set(CODE_COOKIE, await sealed({ ...claims, x: Date.now() - ago }));
      const response = await typeCode(w, jar, code);
      expect(signedIn(response)).toBe(good);
      if (!good) {
        expect(response.headers.get("location")).toBe(UNUSABLE);
        expect(refusals(w)).toEqual(["client-error: The sign-in code has expired"]);
        const cleared = response.headers
          .getSetCookie()
          .filter((c) => c.startsWith(`${CODE_COOKIE}=`));
        expect(cleared).toHaveLength(1);
        expect(cleared[0]).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
      }
    }
  });
});

test("a provider that sends no codes refuses a typed one", async () => {
  const w = world(undefined, {});
  const response = await typeCode(w, new Jar(), "12345678");
  expect(response.headers.get("location")).toBe(UNUSABLE);
  expect(refusals(w)).toEqual(["client-error: This email provider sends no codes"]);
});
