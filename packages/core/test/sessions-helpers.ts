/** Shared by the sessions-*.test.ts files: two users, browsers with their own User-Agent. */
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "./helpers.js";

export const COOKIE = "authjs.session-token";

export const users = {
  alice: { id: "user-alice", name: "Alice", email: "alice@example.com" },
  bob: { id: "user-bob", name: "Bob", email: "bob@example.com" },
};

export const agents = {
  chromeMac:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  firefoxLinux: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  safariIphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
};

/** A config whose credentials provider signs in alice or bob by name (password "pw"). */
export function sessionsConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: ({ username, password }) => {
          const user = users[username as keyof typeof users];
          return user && password === "pw" ? { ...user } : null;
        },
      }),
    ],
    ...overrides,
  };
}

/** A browser: a cookie jar that sends its own User-Agent and X-Forwarded-For. */
export class Browser extends Jar {
  constructor(
    readonly config: AuthConfig,
    readonly userAgent: string,
    readonly ip = "203.0.113.7",
  ) {
    super();
  }

  get headers() {
    return { "user-agent": this.userAgent, "x-forwarded-for": this.ip };
  }

  request(path: string, init: { form?: Record<string, string>; json?: unknown } = {}) {
    return send(this.config, this, path, { ...init, headers: this.headers });
  }

  async signIn(username: keyof typeof users) {
    const token = await csrfToken(this.config, this);
    const response = await this.request("/auth/callback/credentials", {
      form: { csrfToken: token, username, password: "pw" },
    });
    expect(response.status, "sign-in redirects").toBe(302);
    expect(this.cookies.has(COOKIE), "sign-in sets the session cookie").toBe(true);
    return this;
  }

  /** GET /session's body. */
  async session(): Promise<{ user?: { email?: string } } | null> {
    return (await this.request("/auth/session")).json();
  }

  async sessions() {
    const response = await this.request("/auth/sessions");
    return { status: response.status, body: await response.json() };
  }

  async revoke(body: Record<string, unknown>, { csrf = true } = {}) {
    const token = csrf ? await csrfToken(this.config, this) : undefined;
    const response = await this.request("/auth/sessions/revoke", {
      json: { ...body, ...(token ? { csrfToken: token } : {}) },
    });
    return { response, status: response.status, body: await response.json() };
  }
}

/** The ids listed by GET /sessions, and the current one. */
export async function listed(browser: Browser) {
  const { status, body } = await browser.sessions();
  expect(status).toBe(200);
  const sessions = body.sessions as Array<{ id: string; current: boolean }>;
  return { sessions, ids: sessions.map((s) => s.id), current: sessions.find((s) => s.current) };
}
