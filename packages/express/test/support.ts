/**
 * Shared pieces of the Express tests: the Express version they run on, a configuration, a real
 * server on 127.0.0.1, a cookie jar and a client that signs in over HTTP.
 */

import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { GatehouseConfig, User } from "@gatehousejs/express";
import express, { type Express } from "express";
import express4 from "express4";
import { vi } from "vitest";

const requireHere = createRequire(import.meta.url);

/**
 * The Express the tests run on: Express 5 (the devDependency `express`), or Express 4 (the
 * devDependency alias `express4`) in a test file that makes `express` resolve to it with
 * `vi.mock("express", () => import("express4"))` (express4.test.ts). The mock reaches every
 * module the file loads, the package's own `import express` too, as in an app that installed
 * Express 4.
 */
export const EXPRESS_MAJOR: 4 | 5 = express === express4 ? 4 : 5;

/** `Express 4.22.1` or `Express 5.3.0`: the version the tests run on, for their names. */
export const EXPRESS = `Express ${
  (
    requireHere(`${EXPRESS_MAJOR === 4 ? "express4" : "express"}/package.json`) as {
      version: string;
    }
  ).version
}`;

export const SECRET = "express-test-secret-0123456789-abcdefghij";

export const alice: User = { id: "user-1", name: "Alice", email: "alice@example.com" };

/** A logger that records every call. */
export function recordingLogger() {
  return { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
}

/** A JWT-session config with a credentials provider that accepts alice / wonderland. */
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

/** A running server and how to reach and stop it. */
export interface Served {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `app` over real HTTP on a free port of 127.0.0.1. */
export async function serve(app: Express): Promise<Served> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((ok, fail) => {
    server.once("listening", ok);
    server.once("error", fail);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A browser-like cookie store: applies Set-Cookie values, sends a Cookie header. */
export class Jar {
  readonly cookies = new Map<string, string>();

  apply(lines: readonly string[]): void {
    for (const line of lines) {
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
  }

  keep(response: Response): Response {
    this.apply(response.headers.getSetCookie());
    return response;
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  names(): string[] {
    return [...this.cookies.keys()];
  }
}

export const SESSION_COOKIE = "authjs.session-token";

/** A fetch that sends the jar's cookies, keeps what comes back, and never follows redirects. */
export function browser(origin: string, jar = new Jar()) {
  const go = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.cookies.size > 0 && !headers.has("cookie")) headers.set("cookie", jar.header());
    return jar.keep(await fetch(`${origin}${path}`, { ...init, headers, redirect: "manual" }));
  };
  const csrf = async (headers?: HeadersInit) => {
    const response = await go("/api/auth/csrf", { headers });
    return ((await response.json()) as { csrfToken: string }).csrfToken;
  };
  return {
    jar,
    fetch: go,
    csrf,
    /** Posts the credentials form; the callback's response. */
    async signIn(password = "wonderland", headers?: HeadersInit) {
      const csrfToken = await csrf(headers);
      return go("/api/auth/callback/credentials", {
        method: "POST",
        headers: { ...Object.fromEntries(new Headers(headers)) },
        body: new URLSearchParams({
          csrfToken,
          username: "alice",
          password,
          callbackUrl: `${origin}/account`,
        }),
      });
    },
    async session() {
      const response = await go("/api/auth/session");
      return (await response.json()) as { user?: User } | null;
    },
  };
}

/** What a raw node:http exchange returns: status, raw header lines and the body text. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/**
 * A request over node:http, for what fetch hides: header lines sent and received one by one, a
 * body sent in chunks without a length, a Host header fetch would not send.
 */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: OutgoingHttpHeaders | readonly string[];
    chunks?: readonly (string | Buffer)[];
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers as OutgoingHttpHeaders,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (chunk: Buffer) => parts.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(parts).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** The values of one header among raw header lines, each line on its own. */
export function headerLines(rawHeaders: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) out.push(rawHeaders[i + 1] ?? "");
  }
  return out;
}
