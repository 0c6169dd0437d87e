/**
 * A Redis connection that drops in the middle of a request, through `Auth()`: the request ends
 * cleanly (a 200 from /session, the error page from a sign-in), and the next request works
 * because ioredis reconnects.
 *
 * To drop the connection while a command is really in flight, the test pauses writes on the
 * server (`CLIENT PAUSE … WRITE` holds every script), waits until the adapter's command is held,
 * kills the adapter's connection (found by its `CLIENT SETNAME` name) and lifts the pause.
 */
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import type { RedisOptions } from "ioredis";
import { createClient } from "redis";
import { afterAll, describe, expect, test } from "vitest";
import { RedisAdapter, type RedisClientLike } from "../src/index.js";
import {
  deleteKeysUnder,
  ioredis,
  newUser,
  REDIS_URL,
  redisUnavailable,
  uniquePrefix,
} from "./support.js";

const skip = await redisUnavailable("connection-drop.test.ts");
const prefix = uniquePrefix("connection-drop");
const admin = ioredis();
const closers: (() => Promise<unknown>)[] = [];
const ORIGIN = "http://localhost:3000";
const SESSION_COOKIE = "authjs.session-token";

/** A tiny cookie jar carrying cookies from one response to the next request. */
class Jar {
  cookies = new Map<string, string>();
  take(response: Response): Response {
    for (const raw of response.headers.getSetCookie()) {
      const pair = raw.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      const [name, value] = [pair.slice(0, eq), decodeURIComponent(pair.slice(eq + 1))];
      if (/Max-Age=0/i.test(raw) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join("; ");
  }
}

async function send(config: AuthConfig, jar: Jar, path: string, form?: Record<string, string>) {
  const headers = new Headers();
  if (jar.cookies.size > 0) headers.set("cookie", jar.header());
  if (form) headers.set("content-type", "application/x-www-form-urlencoded");
  const request = new Request(`${ORIGIN}${path}`, {
    method: form ? "POST" : "GET",
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return jar.take(await Auth(request, config));
}

async function signIn(config: AuthConfig, jar: Jar): Promise<Response> {
  const csrf = (await (await send(config, jar, "/auth/csrf")).json()) as { csrfToken: string };
  return send(config, jar, "/auth/callback/credentials", {
    csrfToken: csrf.csrfToken,
    username: "someone",
  });
}

/** Opens a client whose connection is named `name`, and how to close it. */
type Connect = (name: string) => Promise<{ client: RedisClientLike; close(): Promise<unknown> }>;

const viaIoredis =
  (options: RedisOptions = {}): Connect =>
  async (connectionName) => {
    const client = ioredis({ connectionName, ...options });
    client.on("error", () => {}); // the kill below is expected
    return { client, close: () => client.quit() };
  };

const viaNodeRedis: Connect = async (name) => {
  const client = createClient({ url: REDIS_URL, name });
  client.on("error", () => {}); // the kill below is expected
  await client.connect();
  return { client, close: () => client.close() };
};

/** An adapter over its own named connection, a config using it, and a stored user. */
async function setup(connect: Connect = viaIoredis()) {
  const connectionName = `gatehouse-drop-${crypto.randomUUID()}`;
  const { client, close } = await connect(connectionName);
  closers.push(close);
  const adapter = RedisAdapter(client, { prefix });
  const user = await adapter.createUser(newUser());
  const errors: Error[] = [];
  const config: AuthConfig = {
    secret: "x".repeat(32),
    trustHost: true,
    adapter,
    logger: { error: (e) => errors.push(e), warn: () => {}, debug: () => {} },
    providers: [Credentials({ credentials: { username: {} }, authorize: () => ({ id: user.id }) })],
  };
  return { connectionName, user, config, errors };
}

/** The id of the connection named `name`, from CLIENT LIST. */
async function clientLine(name: string): Promise<string | undefined> {
  const list = (await admin.call("CLIENT", "LIST")) as string;
  return list.split("\n").find((line) => line.includes(` name=${name} `));
}

/**
 * Runs `request` and kills the connection named `name` while one of its scripts is held by
 * the server, then lets the server go on.
 */
async function dropMidRequest<T>(name: string, request: () => Promise<T>): Promise<T> {
  await admin.call("CLIENT", "PAUSE", "5000", "WRITE");
  try {
    const pending = request();
    pending.catch(() => {}); // awaited below; keeps a rejection from being reported early
    for (let i = 0; ; i++) {
      const line = await clientLine(name);
      if (line && / flags=\w*b/.test(line)) {
        const id = /\bid=(\d+)/.exec(line)?.[1];
        expect(await admin.call("CLIENT", "KILL", "ID", id!)).toBe(1);
        break;
      }
      if (i > 400) throw new Error("the adapter's command never reached the server");
      await new Promise((r) => setTimeout(r, 5));
    }
    await admin.call("CLIENT", "UNPAUSE");
    return await pending;
  } finally {
    await admin.call("CLIENT", "UNPAUSE");
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

describe.skipIf(skip)("a Redis connection that drops mid-request", () => {
  process.on("unhandledRejection", onUnhandled);
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled);
    await deleteKeysUnder(admin, prefix);
    await Promise.all([admin.quit(), ...closers.map((close) => close().catch(() => {}))]);
  });

  test("with ioredis defaults, /session answers 200 and the next request has the session", async () => {
    const { connectionName, user, config } = await setup();
    const jar = new Jar();
    expect((await signIn(config, jar)).status).toBe(302);
    expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();

    const dropped = await dropMidRequest(connectionName, () => send(config, jar, "/auth/session"));
    expect(dropped.status).toBe(200);
    const body = (await dropped.json()) as { user?: { email?: string } } | null;
    // ioredis resends a command that was in flight when the connection closed.
    if (body !== null) expect(body.user?.email).toBe(user.email);

    const next = await send(config, jar, "/auth/session");
    expect(next.status).toBe(200);
    expect(((await next.json()) as { user: { email: string } }).user.email).toBe(user.email);
    expect(unhandled).toEqual([]);
  });

  test.each([
    ["ioredis failing fast (maxRetriesPerRequest: 0)", viaIoredis({ maxRetriesPerRequest: 0 })],
    ["node-redis", viaNodeRedis],
  ])(
    "%s: /session answers 200 with null, then the next request has the session",
    async (_, connect) => {
      const { connectionName, user, config, errors } = await setup(connect);
      const jar = new Jar();
      await signIn(config, jar);

      const dropped = await dropMidRequest(connectionName, () =>
        send(config, jar, "/auth/session"),
      );
      expect(dropped.status).toBe(200);
      expect(await dropped.json()).toBeNull();
      expect(errors.map((e) => e.name)).toContain("SessionTokenError");

      const next = await send(config, jar, "/auth/session");
      expect(next.status).toBe(200);
      expect(((await next.json()) as { user: { email: string } }).user.email).toBe(user.email);
      expect(unhandled).toEqual([]);
    },
  );

  test("failing fast, a sign-in whose createSession is cut gives the error page; the retry signs in", async () => {
    const { connectionName, config, errors } = await setup(viaIoredis({ maxRetriesPerRequest: 0 }));
    const jar = new Jar();
    const dropped = await dropMidRequest(connectionName, () => signIn(config, jar));
    expect(dropped.status).toBe(302);
    expect(dropped.headers.get("location")).toMatch(/\/auth\/(error|signin)\?.*error=/);
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(errors).not.toEqual([]);

    const retry = await signIn(config, jar);
    expect(retry.status).toBe(302);
    expect(retry.headers.get("location")).toBe(ORIGIN);
    expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
    expect(unhandled).toEqual([]);
  });
});
