/**
 * Shared pieces of the SolidStart tests: configurations, a cookie jar, and events shaped as
 * SolidStart 1.x (vinxi/h3 v1) and 2.x (h3 v2) hand them to route handlers and middleware.
 */
import type { SolidAuthConfig, User } from "@gatehousejs/solid-start";
import Credentials from "@gatehousejs/solid-start/providers/credentials";
import { vi } from "vitest";

export const SECRET = "solid-start-test-secret-0123456789-abcdef";
export const ORIGIN = "http://localhost:3000";

export const alice: User = { id: "user-1", name: "Alice", email: "alice@example.com" };

/** A logger that records every call. */
export function recordingLogger() {
  return { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

/** A config with a credentials provider that accepts alice / wonderland. */
export function credentialsConfig(overrides: Partial<SolidAuthConfig> = {}): SolidAuthConfig {
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

/** The response part of a SolidStart event: headers that collect what the page will send. */
export interface ResponseStub {
  status?: number;
  statusText?: string;
  headers: Headers;
}

/** A SolidStart 1.x (vinxi 0.5, h3 v1) fetch event. */
export function eventV1(request: Request) {
  return {
    request,
    response: { status: 200, statusText: "OK", headers: new Headers() } as ResponseStub,
    clientAddress: "127.0.0.1",
    locals: {} as Record<string, unknown>,
    nativeEvent: {
      __is_event__: true,
      node: { req: { url: new URL(request.url).pathname }, res: {} },
      context: {} as Record<string, unknown>,
      _method: request.method,
      _path: new URL(request.url).pathname + new URL(request.url).search,
    },
  };
}

/**
 * A SolidStart 2.x (Vite + Nitro, h3 v2) fetch event: as 2.0.5's `createFetchEvent` builds it,
 * the request is h3's `event.req` and the response stub is h3's `event.res` itself.
 */
export function eventV2(request: Request) {
  const res = { status: 200, headers: new Headers() };
  return {
    request,
    response: res as ResponseStub,
    clientAddress: "127.0.0.1",
    locals: {} as Record<string, unknown>,
    nativeEvent: { req: request, url: new URL(request.url), context: {}, res },
  };
}

export const eventShapes = [
  ["SolidStart 1.x (vinxi)", eventV1],
  ["SolidStart 2.x", eventV2],
] as const;

/** A browser-like cookie store: applies Set-Cookie values, sends a Cookie header. */
export class Jar {
  readonly cookies = new Map<string, string>();

  apply(response: Response): void {
    for (const line of response.headers.getSetCookie()) this.set(line);
  }

  set(line: string): void {
    const [pair = "", ...attributes] = line.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((a) => {
      const [k = "", v = ""] = a.split("=").map((s) => s.trim());
      return (
        (k.toLowerCase() === "max-age" && Number(v) <= 0) ||
        (k.toLowerCase() === "expires" && Date.parse(v) <= Date.now())
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

/** A request to the app, carrying the jar's cookies. */
export function appRequest(
  path: string,
  jar?: Jar,
  init: { method?: string; form?: Record<string, string>; headers?: HeadersInit } = {},
): Request {
  const headers = new Headers(init.headers);
  if (jar && jar.cookies.size > 0) headers.set("cookie", jar.header());
  let body: string | undefined;
  if (init.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(init.form).toString();
  }
  return new Request(`${ORIGIN}${path}`, {
    method: init.method ?? (body ? "POST" : "GET"),
    headers,
    body,
  });
}

export const SESSION_COOKIE = "authjs.session-token";
