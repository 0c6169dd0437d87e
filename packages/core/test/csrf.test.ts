/**
 * Double-submit CSRF: which cookies vouch for a token, and which submitted values match it.
 * Driven through `Auth()`: `GET /csrf` shows whether a cookie was accepted (its token comes back,
 * no new cookie) and a credentials sign-in shows whether a submitted token passed.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tokensMatch } from "../src/lib/csrf.js";
import { credentialsConfig, csrfToken, Jar, ORIGIN, SECRET, send, setCookies } from "./helpers.js";

const CSRF_COOKIE = "authjs.csrf-token";
const SESSION = "authjs.session-token";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** A cookie value built the way Gatehouse (and Auth.js) builds it, for any token. */
const cookieFor = (token: string, secret: string) => `${token}|${sha256(token + secret)}`;

/** What `GET /csrf` makes of a CSRF cookie: the token it answers and whether it minted anew. */
async function readBack(cookie: string, secret: string | string[] = SECRET) {
  const jar = new Jar();
  jar.cookies.set(CSRF_COOKIE, cookie);
  const response = await send(credentialsConfig({ secret }), jar, "/auth/csrf");
  const { csrfToken: token } = (await response.json()) as { csrfToken: string };
  return { token, minted: setCookies(response).has(CSRF_COOKIE) };
}

describe("the CSRF cookie", () => {
  const token = "ab".repeat(32);

  it("is accepted when its hash is the token's under the secret", async () => {
    expect(await readBack(cookieFor(token, SECRET))).toEqual({ token, minted: false });
  });

  it("is replaced when its hash was made with another secret", async () => {
    const result = await readBack(cookieFor(token, "some-other-secret-0123456789abcdef"));
    expect(result.token).not.toBe(token);
    expect(result.token).toMatch(/^[0-9a-f]{64}$/);
    expect(result.minted).toBe(true);
  });

  it("is replaced when the token is not 64 characters, even with a correct hash", async () => {
    for (const other of ["short", "ab".repeat(31), `${"ab".repeat(32)}c`, ""]) {
      const result = await readBack(cookieFor(other, SECRET));
      expect(result.token, JSON.stringify(other)).not.toBe(other);
      expect(result.token).toMatch(/^[0-9a-f]{64}$/);
      expect(result.minted).toBe(true);
    }
  });

  it("is replaced when anything follows the hash", async () => {
    for (const suffix of ["0", "|", " "]) {
      const result = await readBack(cookieFor(token, SECRET) + suffix);
      expect(result.token).not.toBe(token);
      expect(result.minted).toBe(true);
    }
  });

  describe("across a secret rotation", () => {
    const rotated = ["new-secret-0123456789abcdef0123456789", SECRET];

    it("a cookie hashed with an older secret of the list still vouches", async () => {
      expect(await readBack(cookieFor(token, SECRET), rotated)).toEqual({ token, minted: false });
    });

    it("a cookie hashed with the list joined by commas (as Auth.js hashes it) vouches", async () => {
      expect(await readBack(cookieFor(token, rotated.join(",")), rotated)).toEqual({
        token,
        minted: false,
      });
    });

    it("new cookies are hashed with the first secret", async () => {
      const jar = new Jar();
      await send(credentialsConfig({ secret: rotated }), jar, "/auth/csrf");
      const value = jar.cookies.get(CSRF_COOKIE)!;
      const [minted, hash] = value.split("|") as [string, string];
      expect(hash).toBe(sha256(minted + rotated[0]!));
    });
  });
});

describe("the submitted token", () => {
  async function signInSubmitting(submitted: (token: string) => unknown) {
    const config = credentialsConfig();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      json: { csrfToken: submitted(token), username: "alice", password: "wonderland" },
    });
    return { location: response.headers.get("location"), signedIn: jar.cookies.has(SESSION) };
  }

  it("passes as the exact string", async () => {
    const result = await signInSubmitting((token) => token);
    expect(result).toEqual({ location: `${ORIGIN}`, signedIn: true });
  });

  it.each([
    ["an array holding the token", (token: string) => [token]],
    ["an object", (token: string) => ({ toString: token })],
    ["the token uppercased", (token: string) => token.toUpperCase()],
    ["the token with a trailing space", (token: string) => `${token} `],
    ["the token cut short", (token: string) => token.slice(0, -1)],
    ["the whole cookie value", (token: string) => `${token}|`],
    ["null", () => null],
    ["a number", () => 0],
  ])("fails as %s: MissingCSRF, no session", async (_, submitted) => {
    const result = await signInSubmitting(submitted);
    expect(result.signedIn).toBe(false);
    expect(result.location).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
  });

  it("never matches when there is no cookie token, not even an empty submission", () => {
    expect(tokensMatch("", undefined)).toBe(false);
    expect(tokensMatch("undefined", undefined)).toBe(false);
  });
});

describe("a sign-out refused for its CSRF token", () => {
  async function signedIn() {
    const config = credentialsConfig();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: token, username: "alice", password: "wonderland" },
    });
    expect(jar.cookies.has(SESSION)).toBe(true);
    return { config, jar };
  }

  it("goes back to the sign-out page, which says the sign-out form expired", async () => {
    const { config, jar } = await signedIn();
    const refused = await send(config, jar, "/auth/signout", { form: { csrfToken: "stale" } });
    expect(refused.status).toBe(302);
    const location = refused.headers.get("location") ?? "";
    expect(location).toBe(`${ORIGIN}/auth/signout?error=MissingCSRF`);
    expect(jar.cookies.has(SESSION)).toBe(true);
    const page = await send(config, jar, new URL(location).pathname + new URL(location).search);
    const html = await page.text();
    expect(html).toContain("The sign out form expired. Please try again.");
    expect(html).not.toContain("sign in form");
    expect(html).toContain("<title>Error: Sign Out</title>");
    // The page carries a working form: posting its token signs out.
    const token = /name="csrfToken" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? "";
    const retried = await send(config, jar, "/auth/signout", { form: { csrfToken: token } });
    expect(retried.headers.get("location")).toBe(ORIGIN);
    expect(jar.cookies.has(SESSION)).toBe(false);
  });

  it("keeps an accepted callback URL, drops a refused one", async () => {
    const { config, jar } = await signedIn();
    const kept = await send(config, jar, "/auth/signout", { form: { callbackUrl: "/bye" } });
    expect(kept.headers.get("location")).toBe(
      `${ORIGIN}/auth/signout?error=MissingCSRF&callbackUrl=${encodeURIComponent(`${ORIGIN}/bye`)}`,
    );
    const dropped = await send(config, jar, "/auth/signout", {
      form: { callbackUrl: "https://evil.example/" },
    });
    expect(dropped.headers.get("location")).toBe(`${ORIGIN}/auth/signout?error=MissingCSRF`);
  });

  it("goes to a custom sign-out page with error=MissingCSRF", async () => {
    const config = credentialsConfig({ pages: { signOut: "/leave" } });
    const answer = await send(config, new Jar(), "/auth/signout", { form: {} });
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/leave?error=MissingCSRF`);
    const page = await send(config, new Jar(), "/auth/signout?error=MissingCSRF");
    expect(page.headers.get("location")).toBe(`${ORIGIN}/leave?error=MissingCSRF`);
  });

  it("a fetch client gets the sign-out page's URL", async () => {
    const answer = await send(credentialsConfig(), new Jar(), "/auth/signout", {
      form: {},
      headers: { "X-Auth-Return-Redirect": "1" },
    });
    expect(await answer.json()).toEqual({ url: `${ORIGIN}/auth/signout?error=MissingCSRF` });
  });

  it("a refused sign-in still goes to the sign-in page", async () => {
    const answer = await send(credentialsConfig(), new Jar(), "/auth/callback/credentials", {
      form: { username: "alice", password: "wonderland" },
    });
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
  });
});
