/**
 * The device cookie's own rules (rate-limit/device.ts), pinned one by one: its exact format (a
 * cookie written today must still be read by the next version), when an account's entry ends, how
 * many accounts one browser remembers, and which values are refused as malformed.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import type { Context } from "../src/lib/context.js";
import {
  DEVICE_ACCOUNTS,
  DEVICE_MAX_AGE,
  type Device,
  deviceCookie,
  deviceOf,
  holdsAccount,
} from "../src/lib/features/rate-limit/device.js";

const SECRET = "device-rules-secret-".repeat(2);
const ID = "0123456789abcdef0123456789abcdef";
const T0 = 1_800_000_000;

function ctxWith(cookie?: string, secrets = [SECRET]): Context {
  return {
    config: { secrets },
    cookieOptions: { sessionToken: { options: { secure: false } } },
    req: { cookies: cookie === undefined ? {} : { "gatehouse.device": cookie } },
  } as unknown as Context;
}

const at = (seconds: number) => vi.setSystemTime(seconds * 1000);

/** Signs `accounts` in, one after the other, in one browser; returns its last cookie value. */
async function signInAll(accounts: string[], start?: Device | null): Promise<string> {
  let device = start ?? null;
  let value = "";
  for (const account of accounts) {
    value = (await deviceCookie(ctxWith(), account, device)).value;
    device = deviceOf(ctxWith(value));
  }
  return value;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the device cookie's format", () => {
  test("a cookie written at a known time is exactly the one every version must keep reading", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(T0);
    const cookie = await deviceCookie(ctxWith(), "ålice@example.com", { id: ID, entries: [] });
    expect(cookie.value).toBe(`${ID}.${T0 + DEVICE_MAX_AGE}.${cookie.value.slice(-22)}`);
    // The seal, as this version computes it: a change here signs every browser's device out.
    expect(cookie.value.slice(-22)).toMatchInlineSnapshot(`"Oz3QauViqSWjvbkcr99tZS"`);
    expect(cookie).toMatchObject({
      name: "gatehouse.device",
      options: {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: false,
        maxAge: DEVICE_MAX_AGE,
      },
    });
  });

  test("a new browser gets a fresh 32-hex-digit id; a known one keeps its id", async () => {
    const fresh = deviceOf(ctxWith((await deviceCookie(ctxWith(), "a", null)).value));
    expect(fresh?.id).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh?.entries).toHaveLength(1);
    const again = deviceOf(ctxWith((await deviceCookie(ctxWith(), "b", fresh)).value));
    expect(again?.id).toBe(fresh?.id);
    expect(again?.entries).toHaveLength(2);
  });
});

describe("which values are a device cookie", () => {
  test.each([
    ["nothing", undefined],
    ["an empty value", ""],
    ["a short word", "abc"],
    ["an id alone", ID],
    ["junk before a valid value", `x${ID}.1800000000.${"a".repeat(22)}`],
    ["junk after a valid value", `${ID}.1800000000.${"a".repeat(22)}x`],
    ["nine entries", ID + `.1800000000.${"a".repeat(22)}`.repeat(9)],
    ["an upper-case id", `${ID.toUpperCase()}.1800000000.${"a".repeat(22)}`],
  ])("%s is none", (_, value) => {
    expect(deviceOf(ctxWith(value))).toBeNull();
  });

  test("one to eight entries are read as written, the longest allowed value included", () => {
    for (let n = 1; n <= DEVICE_ACCOUNTS; n++) {
      const entries = Array.from({ length: n }, (_, i) => [
        String(T0 + i),
        `${String(i).padStart(2, "0")}${"s".repeat(20)}`,
      ]);
      const value = ID + entries.map(([e, s]) => `.${e}.${s}`).join("");
      expect(deviceOf(ctxWith(value))).toEqual({ id: ID, entries });
    }
  });
});

describe("when an account's entry counts", () => {
  test("until its expiry, not at it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(T0);
    const device = deviceOf(ctxWith(await signInAll(["alice"])));
    expect(device).not.toBeNull();
    at(T0 + DEVICE_MAX_AGE - 1);
    expect(await holdsAccount([SECRET], device as Device, "alice")).toBe(true);
    at(T0 + DEVICE_MAX_AGE);
    expect(await holdsAccount([SECRET], device as Device, "alice")).toBe(false);
  });

  test("only for the account it was written for, and under any secret of the rotation list", async () => {
    const device = deviceOf(ctxWith(await signInAll(["alice"]))) as Device;
    expect(await holdsAccount([SECRET], device, "bob")).toBe(false);
    expect(await holdsAccount(["a-newer-secret-".repeat(3), SECRET], device, "alice")).toBe(true);
    expect(await holdsAccount(["another-secret-".repeat(3)], device, "alice")).toBe(false);
  });

  test("a seal copied onto another device id counts for nothing", async () => {
    const device = deviceOf(ctxWith(await signInAll(["alice"]))) as Device;
    const moved = { id: "f".repeat(32), entries: device.entries };
    expect(await holdsAccount([SECRET], moved, "alice")).toBe(false);
  });
});

describe("how many accounts one browser remembers", () => {
  test(`the last ${DEVICE_ACCOUNTS}: a ninth forgets the first`, async () => {
    const accounts = Array.from({ length: DEVICE_ACCOUNTS + 1 }, (_, i) => `user${i}`);
    const device = deviceOf(ctxWith(await signInAll(accounts))) as Device;
    expect(device.entries).toHaveLength(DEVICE_ACCOUNTS);
    expect(await holdsAccount([SECRET], device, "user0")).toBe(false);
    for (const account of accounts.slice(1)) {
      expect(await holdsAccount([SECRET], device, account)).toBe(true);
    }
  });

  test("signing in again to one account rewrites its entry, last, instead of adding one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(T0);
    const first = deviceOf(ctxWith(await signInAll(["alice", "bob"]))) as Device;
    at(T0 + 100);
    const again = deviceOf(ctxWith(await signInAll(["alice"], first))) as Device;
    expect(again.entries).toHaveLength(2);
    expect(again.entries[0]).toEqual(first.entries[1]);
    expect(again.entries[1]?.[0]).toBe(String(T0 + 100 + DEVICE_MAX_AGE));
  });

  test("an ended entry is dropped when the cookie is written again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(T0);
    const old = deviceOf(ctxWith(await signInAll(["alice"]))) as Device;
    at(T0 + DEVICE_MAX_AGE);
    const next = deviceOf(ctxWith(await signInAll(["bob"], old))) as Device;
    expect(next.entries).toHaveLength(1);
    expect(await holdsAccount([SECRET], next, "bob")).toBe(true);
  });
});
