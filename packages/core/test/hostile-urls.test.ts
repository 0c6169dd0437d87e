/**
 * Same-origin callback URLs with characters a header cannot carry (above U+00FF, lone
 * surrogates): normalised before they become a `Location` header or a cookie, so no hostile
 * link can make `Auth()` reject, and a planted callback-url cookie cannot lock a browser out.
 */
import { Auth } from "@gatehousejs/core";
import { describe, expect, test } from "vitest";
import {
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  send,
  signInAlice,
} from "./helpers.js";

const CALLBACK_COOKIE = "authjs.callback-url";

const unusual = [
  ["a path above U+00FF", "/日本"],
  ["an absolute same-origin URL above U+00FF", `${ORIGIN}/日本?q=é`],
  ["a lone high surrogate", "/a\ud800b"],
  ["a lone low surrogate in the query", `${ORIGIN}/x?y=\udc00`],
  ["an emoji", "/🙂"],
];

async function sessionUser(config: ReturnType<typeof credentialsConfig>, jar: Jar) {
  const session = await (await send(config, jar, "/auth/session")).json();
  return session?.user?.name as string | undefined;
}

describe.each(unusual)("a callbackUrl with %s", (_name, callbackUrl) => {
  test("signs in and redirects to its percent-encoded form", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    // JSON carries a lone surrogate as is (a form would have replaced it already).
    const response = await send(config, jar, "/auth/callback/credentials", {
      json: {
        csrfToken: await csrfToken(config, jar),
        username: "alice",
        password: "wonderland",
        callbackUrl,
      },
    });
    expect(response.status).toBe(302);
    const location = response.headers.get("location")!;
    expect(location).toMatch(/^[\x21-\x7e]+$/);
    expect(new URL(location).origin).toBe(ORIGIN);
    expect(await sessionUser(config, jar)).toBe("Alice");
  });

  test("in the query of the sign-in page, answers a page", async () => {
    const config = credentialsConfig();
    const query = new URLSearchParams({ callbackUrl }).toString();
    const response = await send(config, new Jar(), `/auth/signin?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  });

  test("planted in the callback-url cookie, locks nobody out", async () => {
    const logger = recordingLogger();
    const config = credentialsConfig({ logger });
    const jar = new Jar();
    await signInAlice(config, jar);
    expect(await sessionUser(config, jar)).toBe("Alice");
    // A cross-site link planted the cookie: percent-encoded as Set-Cookie carries it, or with
    // the bytes of a lone surrogate, which no decoder accepts.
    const encoded = /[\ud800-\udfff]/.test(callbackUrl.replace(/\ud83d\ude42/g, ""))
      ? callbackUrl.replace(
          /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
          "%ED%A0%80",
        )
      : encodeURIComponent(callbackUrl);
    const planted = `${CALLBACK_COOKIE}=${encoded}`;
    const token = await csrfToken(config, jar);
    const request = new Request(`${ORIGIN}/auth/signout`, {
      method: "POST",
      headers: {
        cookie: `${jar.header()}; ${planted}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrfToken: token }).toString(),
    });
    const signOut = jar.take(await Auth(request, config));
    expect(signOut.status).toBe(302);
    expect(await sessionUser(config, jar)).toBeUndefined();
    // And signing in again from that browser works.
    const again = await signInAlice(config, jar);
    expect(again.status).toBe(302);
    expect(await sessionUser(config, jar)).toBe("Alice");
    expect(logger.error).not.toHaveBeenCalled();
  });
});

test("a redirect callback returning text above U+00FF still answers with a valid header", async () => {
  const config = credentialsConfig({ callbacks: { redirect: () => `${ORIGIN}/ünïcödé/日本` } });
  const response = await signInAlice(config, new Jar(), { callbackUrl: "/x" });
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(
    `${ORIGIN}/%C3%BCn%C3%AFc%C3%B6d%C3%A9/%E6%97%A5%E6%9C%AC`,
  );
});

test("a response that cannot be built becomes a 400 with one log line, not a rejection", async () => {
  const logger = recordingLogger();
  const config = credentialsConfig({
    logger,
    // A custom cookie name that no header can carry: a broken response, caught at the end.
    cookies: { csrfToken: { name: "csrf\u0100token" } },
  });
  const response = await Auth(new Request(`${ORIGIN}/auth/csrf`), config);
  expect(response.status).toBe(400);
  expect(logger.error).toHaveBeenCalledTimes(1);
});
