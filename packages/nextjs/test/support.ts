/** Shared pieces of the Next.js tests: a configuration, sign-in in-process, cookie reading. */
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { GatehouseConfig, User } from "@gatehousejs/nextjs";
import { vi } from "vitest";

export const SECRET = "nextjs-test-secret-0123456789-abcdef-ghij";
export const ORIGIN = "http://localhost:3000";
export const SESSION_COOKIE = "authjs.session-token";

export const alice: User = { id: "user-1", name: "Alice", email: "alice@example.com" };

/** A logger that records every call, so tests stay quiet and can look. */
export function recordingLogger() {
  return { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

/** A config with a credentials provider that accepts alice / wonderland. */
export function credentialsConfig(overrides: Partial<GatehouseConfig> = {}): GatehouseConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland" ? { ...alice } : null,
      }),
    ],
    ...overrides,
  };
}

/** The value of a cookie in a list of `Set-Cookie` values, or `undefined`. */
export function cookieValue(setCookies: string[], name: string): string | undefined {
  for (const cookie of setCookies) {
    const eq = cookie.indexOf("=");
    if (cookie.slice(0, eq) === name) return cookie.slice(eq + 1).split(";")[0];
  }
  return undefined;
}

/**
 * Signs alice in through core's auth route (CSRF token, then the credentials callback) and
 * returns the session cookie's value: what a browser would hold after signing in.
 */
export async function signedInCookie(config: GatehouseConfig): Promise<string> {
  const core = { ...config, basePath: "/api/auth" } as Parameters<typeof Auth>[1];
  const csrf = await Auth(new Request(`${ORIGIN}/api/auth/csrf`), core);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const response = await Auth(
    new Request(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
    }),
    core,
  );
  const value = cookieValue(response.headers.getSetCookie(), SESSION_COOKIE);
  if (!value) throw new Error(`sign-in answered ${response.status} without a session cookie`);
  return value;
}
