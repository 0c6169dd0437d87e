/**
 * Shared pieces of the Hono tests: a configuration, a small app served over real HTTP by
 * @hono/node-server, a client that can choose its source address, and a cookie jar.
 */
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import Credentials from "@gatehousejs/core/providers/credentials";
import {
  type AuthEnv,
  type AuthHandlerOptions,
  gatehouse,
  getCsrfToken,
  type HonoAuthConfig,
  requireAuth,
} from "@gatehousejs/hono";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { html } from "hono/html";
import { vi } from "vitest";

export const SECRET = "hono-test-secret-0123456789-abcdef-0123";
export const SESSION_COOKIE = "authjs.session-token";
export const CSRF_COOKIE = "authjs.csrf-token";

/** A logger that records every call (and keeps the test output quiet). */
export function recordingLogger() {
  return { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

/** A config with a credentials provider that accepts alice / wonderland. */
export function credentialsConfig(overrides: Partial<HonoAuthConfig> = {}): HonoAuthConfig {
  return {
    secret: SECRET,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland"
            ? { id: "user-1", name: "Alice", email: "alice@example.com" }
            : null,
      }),
    ],
    ...overrides,
  };
}

/** The app of the tests: Gatehouse on every path, an API route, a page and a sign-out form. */
export function testApp(
  config: HonoAuthConfig,
  options: AuthHandlerOptions = { getConnInfo },
): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.use(gatehouse(config, options));
  app.get("/", (c) => c.json({ user: c.get("user") }));
  app.get("/api/me", requireAuth(), (c) =>
    c.json({ name: c.get("user").name, expires: c.get("session").expires }),
  );
  app.get("/account", requireAuth(), (c) => c.html(html`<h1>Hello ${c.get("user").name}</h1>`));
  app.get("/bye", async (c) => {
    const csrfToken = await getCsrfToken(c, config);
    return c.html(html`<form method="post" action="/api/auth/signout">
      <input type="hidden" name="csrfToken" value="${csrfToken}"></form>`);
  });
  return app;
}

/** A server listening on 127.0.0.1 at a free port. */
export interface Served {
  port: number;
  close(): Promise<void>;
}

/** Serves `app` over HTTP with @hono/node-server on 127.0.0.1, port 0. */
export function listen(app: Hono<AuthEnv>): Promise<Served> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        port: (info as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
    server.once("error", reject);
  });
}

/** What {@link send} resolves to. */
export interface Answer {
  status: number;
  header(name: string): string | undefined;
  setCookies: string[];
  body: string;
  json(): unknown;
}

/** Options of {@link send}. */
export interface SendOptions {
  method?: string;
  form?: Record<string, string>;
  body?: string;
  headers?: Record<string, string>;
  jar?: Jar;
  /** The client socket's source address, such as `127.0.0.2`. */
  localAddress?: string;
}

/** An HTTP request to the served app, from a chosen source address; the jar takes the cookies. */
export function send(served: Served, path: string, options: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  if (options.jar && options.jar.cookies.size > 0) headers.cookie = options.jar.header();
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: served.port,
        path,
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        headers,
        localAddress: options.localAddress ?? "127.0.0.1",
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const setCookies = res.headers["set-cookie"] ?? [];
          for (const line of setCookies) options.jar?.set(line);
          resolve({
            status: res.statusCode ?? 0,
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return Array.isArray(value) ? value.join(", ") : value;
            },
            setCookies,
            body: text,
            json: () => JSON.parse(text),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A browser-like cookie store: applies Set-Cookie values, sends a Cookie header. */
export class Jar {
  readonly cookies = new Map<string, string>();

  set(line: string): void {
    const [pair = "", ...attributes] = line.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((attribute) => {
      const [key = "", v = ""] = attribute.split("=").map((s) => s.trim());
      return (
        (key.toLowerCase() === "max-age" && Number(v) <= 0) ||
        (key.toLowerCase() === "expires" && Date.parse(v) <= Date.now())
      );
    });
    if (expired || value === "") this.cookies.delete(name);
    else this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** A CSRF token and its cookie in `jar`, from `GET /api/auth/csrf`. */
export async function csrfToken(served: Served, jar: Jar, localAddress?: string): Promise<string> {
  const answer = await send(served, "/api/auth/csrf", {
    jar,
    ...(localAddress && { localAddress }),
  });
  if (answer.status !== 200) throw new Error(`GET /api/auth/csrf answered ${answer.status}`);
  return (answer.json() as { csrfToken: string }).csrfToken;
}

/** Signs alice in with credentials; the jar holds her session cookie. */
export async function signIn(served: Served, jar: Jar): Promise<Answer> {
  const token = await csrfToken(served, jar);
  return send(served, "/api/auth/callback/credentials", {
    jar,
    form: { csrfToken: token, username: "alice", password: "wonderland", callbackUrl: "/account" },
  });
}
