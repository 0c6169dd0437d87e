/**
 * Session cookies minted by Auth.js itself (@auth/core 0.41.3): a credentials sign-in through its
 * own handler, as a browser signed in before the app switched to Gatehouse holds. Those tokens
 * carry no `sid` and no `auth_time`.
 */
import { Auth as AuthJs, type AuthConfig as AuthJsConfig } from "@auth/core";
import AuthJsCredentials from "@auth/core/providers/credentials";
import { expect } from "vitest";
import { Jar, ORIGIN, SECRET } from "../helpers.js";

/** The cookie name on a plain-HTTP origin, the same under Auth.js and Gatehouse. */
export const AUTHJS_SESSION_COOKIE = "authjs.session-token";

const silent = { error() {}, warn() {}, debug() {} };

async function authjsSend(config: AuthJsConfig, jar: Jar, path: string, form?: object) {
  const headers = new Headers();
  if (jar.cookies.size > 0) headers.set("cookie", jar.header());
  if (form) headers.set("content-type", "application/x-www-form-urlencoded");
  const request = new Request(`${ORIGIN}${path}`, {
    method: form ? "POST" : "GET",
    headers,
    body: form ? new URLSearchParams(form as Record<string, string>).toString() : undefined,
  });
  return jar.take(await AuthJs(request, config));
}

/**
 * Signs `user` in through @auth/core's handler (JWT sessions, the shared test secret) and returns
 * the session cookie's value. Its `sub` is `user.id`.
 */
export async function authjsSessionCookie(user: {
  id: string;
  email?: string;
  name?: string;
}): Promise<string> {
  const config: AuthJsConfig = {
    secret: SECRET,
    trustHost: true,
    logger: silent,
    providers: [
      AuthJsCredentials({
        credentials: { username: {}, password: {} },
        authorize: () => ({ ...user }),
      }),
    ],
  };
  const jar = new Jar();
  const csrf = await authjsSend(config, jar, "/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await authjsSend(config, jar, "/auth/callback/credentials", {
    csrfToken,
    username: "someone",
    password: "anything",
  });
  expect(response.status, "the Auth.js sign-in redirects").toBe(302);
  const cookie = jar.cookies.get(AUTHJS_SESSION_COOKIE);
  expect(cookie, "Auth.js set its session cookie").toBeTruthy();
  return cookie!;
}
