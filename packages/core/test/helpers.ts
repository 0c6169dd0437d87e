import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig, LoggerInstance } from "@gatehousejs/core/types";
import { vi } from "vitest";

export const SECRET = "test-secret-with-enough-entropy-0123456789";
export const ORIGIN = "http://localhost:3000";

/** A logger that records every call, so tests can count log lines. */
export function recordingLogger() {
  return {
    error: vi.fn<LoggerInstance["error"]>(),
    warn: vi.fn<LoggerInstance["warn"]>(),
    debug: vi.fn<LoggerInstance["debug"]>(),
  };
}

export const alice = {
  id: "user-1",
  name: "Alice",
  email: "alice@example.com",
  image: "https://img.example/a.png",
};

/** A config with one credentials provider that accepts alice / wonderland. */
export function credentialsConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: {
          username: { label: "Username" },
          password: { label: "Password", type: "password" },
        },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland" ? { ...alice } : null,
      }),
    ],
    ...overrides,
  };
}

/** The `Set-Cookie` headers of a response, parsed to name → { value, attributes }. */
export function setCookies(response: Response): Map<string, { value: string; raw: string }> {
  const out = new Map<string, { value: string; raw: string }>();
  for (const raw of response.headers.getSetCookie()) {
    const [pair] = raw.split(";");
    const eq = pair!.indexOf("=");
    out.set(pair!.slice(0, eq), { value: decodeURIComponent(pair!.slice(eq + 1)), raw });
  }
  return out;
}

/** A tiny cookie jar: carries cookies from responses to the next request, like a browser. */
export class Jar {
  cookies = new Map<string, string>();
  take(response: Response): Response {
    for (const [name, { value, raw }] of setCookies(response)) {
      if (/Max-Age=0/.test(raw) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join("; ");
  }
}

/** Sends a request through Auth() with the jar's cookies and keeps the cookies it sets. */
export async function send(
  config: AuthConfig,
  jar: Jar,
  path: string,
  init: {
    method?: string;
    form?: Record<string, string>;
    json?: unknown;
    headers?: Record<string, string>;
    origin?: string;
  } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (jar.cookies.size > 0) headers.set("cookie", jar.header());
  let body: string | undefined;
  if (init.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const request = new Request(`${init.origin ?? ORIGIN}${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  return jar.take(await Auth(request, config));
}

/** Fetches a CSRF token into the jar and returns it. */
export async function csrfToken(config: AuthConfig, jar: Jar, origin?: string): Promise<string> {
  const response = await send(config, jar, "/auth/csrf", { origin });
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

/** Signs alice in with credentials; returns the redirect response. */
export async function signInAlice(
  config: AuthConfig,
  jar: Jar,
  extra: Record<string, string> = {},
) {
  const token = await csrfToken(config, jar);
  return send(config, jar, "/auth/callback/credentials", {
    form: { csrfToken: token, username: "alice", password: "wonderland", ...extra },
  });
}

/** callbackUrl values that must never lead off the site (each is refused by the default rule). */
export const HOSTILE_CALLBACK_URLS = [
  "https://evil.example",
  "//evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "https:evil.example",
  "javascript:alert(1)",
  "http://localhost:3000@evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "\t//evil.example",
  "HTTPS://EVIL.EXAMPLE",
  "http://localhost:3000.evil.example",
  "http://evil.example\\@localhost:3000",
  "https://localhost:3000",
  "data:text/html,<script>alert(1)</script>",
  "http://[::1",
];
