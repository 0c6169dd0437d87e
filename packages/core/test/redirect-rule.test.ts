/**
 * The default redirect rule: a callback URL is followed only when it stays on the site's own
 * origin, written in one of the plain forms (`/path`, or `http(s)://own-host/...`). Driven through
 * a credentials sign-in, whose final redirect is the callback URL, and through the `signIn`
 * callback, whose string verdict goes through the same rule.
 */
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, it } from "vitest";
import { sameOriginUrl } from "../src/lib/callbacks.js";
import { credentialsConfig, Jar, ORIGIN, recordingLogger, signInAlice } from "./helpers.js";

const SESSION = "authjs.session-token";

interface Outcome {
  status: number;
  location: string | null;
  signedIn: boolean;
  /** The error types of every failure logged, at any level. */
  logged: string[];
  /** Their messages. */
  messages: string[];
}

async function signInWith(callbackUrl: string, overrides: Partial<AuthConfig> = {}) {
  const logger = recordingLogger();
  const config = credentialsConfig({ logger, ...overrides });
  const jar = new Jar();
  const response = await signInAlice(config, jar, { callbackUrl });
  const errors = [...logger.error.mock.calls, ...logger.warn.mock.calls, ...logger.debug.mock.calls]
    .flat()
    .filter((value): value is Error => value instanceof Error);
  const logged = errors.map((error) => (error as Error & { type?: string }).type ?? error.name);
  const messages = errors.map((error) => error.message);
  return {
    status: response.status,
    location: response.headers.get("location"),
    signedIn: jar.cookies.has(SESSION),
    logged,
    messages,
  } satisfies Outcome;
}

/** The sign-in went through and its redirect is exactly `expected`. */
function expectFollowed(outcome: Outcome, expected: string) {
  expect(outcome.status).toBe(302);
  expect(outcome.location).toBe(expected);
}

/** The callback URL was refused as `InvalidCallbackUrl`: no redirect anywhere near it. */
function expectRefused(outcome: Outcome, callbackUrl: string) {
  const answered =
    (outcome.status === 302 &&
      /[?&]error=InvalidCallbackUrl(?:&|$)/.test(outcome.location ?? "")) ||
    outcome.status === 400;
  expect(answered, `${JSON.stringify(callbackUrl)} → ${outcome.status} ${outcome.location}`).toBe(
    true,
  );
  if (outcome.location !== null) expect(new URL(outcome.location).origin).toBe(ORIGIN);
  expect(outcome.signedIn).toBe(false);
  expect(outcome.logged).toContain("InvalidCallbackUrl");
}

describe("the default redirect rule follows URLs on the site's own origin", () => {
  it.each([
    ["/dashboard", `${ORIGIN}/dashboard`],
    ["/a/b?c=1&d=2#e", `${ORIGIN}/a/b?c=1&d=2#e`],
    // Only a leading `/%2F` or `/%5C` could read as `//host`; deeper in the path it is ordinary.
    ["/files/%2Fetc", `${ORIGIN}/files/%2Fetc`],
    ["/search?q=%5C", `${ORIGIN}/search?q=%5C`],
    [`${ORIGIN}/settings`, `${ORIGIN}/settings`],
    // An absolute same-origin URL is kept exactly as written.
    ["HTTP://localhost:3000/Case", "HTTP://localhost:3000/Case"],
    [`${ORIGIN}/next?to=http://localhost:3000/x`, `${ORIGIN}/next?to=http://localhost:3000/x`],
  ])("%j → %s", async (callbackUrl, expected) => {
    expectFollowed(await signInWith(callbackUrl), expected);
  });

  it("follows a callback URL of exactly 4096 characters, and refuses one of 4097", async () => {
    const at = `/${"a".repeat(4095)}`;
    expect(at).toHaveLength(4096);
    expectFollowed(await signInWith(at), `${ORIGIN}${at}`);
    const over = `${at}b`;
    expectRefused(await signInWith(over), over);
  });
});

describe("the default redirect rule refuses", () => {
  it.each([
    // Protocol-relative, even to the site's own host: one spelling per URL.
    ["//own-host", "//localhost:3000/dashboard"],
    ["//own-host with a path only", "//localhost:3000"],
    // Scheme without `//`: WHATWG parsers read it as the host, but others do not.
    ["http:own-host", "http:localhost:3000/dashboard"],
    ["http:own-host with a URL in the query", "http:localhost:3000/a?u=http://b"],
    ["https:own-host", "https:localhost:3000/"],
    // Percent-encoded slash or backslash right after the first slash.
    ["/%2F", "/%2Fevil.example"],
    ["/%2f", "/%2fevil.example"],
    ["/%5C", "/%5Cevil.example"],
    ["/%5c", "/%5cevil.example"],
    // Control characters and backslashes, even where the URL parser would quietly repair them
    // into a same-origin path.
    ["a tab", "/dash\tboard"],
    ["a newline", "/dash\nboard"],
    ["a carriage return", "/dash\rboard"],
    ["a NUL", "/dash\u0000board"],
    ["a unit separator", "/dash\u001fboard"],
    ["a DEL", "/dash\u007fboard"],
    ["a backslash", "/dash\\board"],
    ["a backslash in an absolute URL", `${ORIGIN}/a\\b`],
    ["a tab in an absolute URL", `${ORIGIN}/a\tb`],
    // Other schemes, even when they name the host.
    ["ftp", "ftp://localhost:3000/"],
    ["a blob URL of the site", `blob:${ORIGIN}/0b2f7b1c-8a4e-4f0e-9d55-7a3c1c1e9c11`],
    ["unparseable", "http://[::1"],
    ["another origin", "https://evil.example/"],
    ["another port", "http://localhost:3001/"],
    ["another scheme of the same host", "https://localhost:3000/"],
  ])("%s: %j", async (_, callbackUrl) => {
    expectRefused(await signInWith(callbackUrl), callbackUrl);
  });

  it("and says so in the log, without repeating the URL", async () => {
    const outcome = await signInWith("https://evil.example/steal");
    expect(outcome.messages).toEqual(["The callback URL is not on this site's origin"]);
  });
});

describe("a string from the signIn callback goes through the same rule", () => {
  const deciding = (verdict: string): Partial<AuthConfig> => ({
    callbacks: { signIn: () => verdict },
  });

  it("a same-origin path: the sign-in stops there, without a session", async () => {
    const outcome = await signInWith("/ignored", deciding("/welcome-back"));
    expectFollowed(outcome, `${ORIGIN}/welcome-back`);
    expect(outcome.signedIn).toBe(false);
  });

  it.each([
    "https://evil.example/",
    "//evil.example",
    "//localhost:3000/x",
    "http:localhost:3000/x",
    "/\\evil.example",
    "http://[::1",
  ])("an off-site or malformed URL, %j, is refused as InvalidCallbackUrl", async (verdict) => {
    expectRefused(await signInWith("/ignored", deciding(verdict)), verdict);
  });
});

describe("sameOriginUrl, for what the protocol cannot send", () => {
  // `Auth()` treats an empty callbackUrl as absent and only ever passes strings; the exported
  // rule still answers for any input a custom `redirect` callback might hand it.
  it("refuses an empty URL and anything that is not a string", () => {
    expect(sameOriginUrl("", ORIGIN)).toBeUndefined();
    for (const url of [undefined, null, 42, ["/a"], { href: "/a" }]) {
      expect(sameOriginUrl(url as unknown as string, ORIGIN)).toBeUndefined();
    }
  });

  it("resolves a path against the base's origin, not against its path", () => {
    expect(sameOriginUrl("/x", `${ORIGIN}/auth/signin?y=1`)).toBe(`${ORIGIN}/x`);
  });
});
