/**
 * Request bodies: streamed to Gatehouse when nothing read them first, rebuilt from `req.body`
 * when `express.json()` or `express.urlencoded()` did, and refused with 413 past core's limit
 * either way.
 */
import { gatehouse } from "@gatehousejs/express";
import express, { type Express } from "express";
import { afterEach, describe, expect, test } from "vitest";
import {
  alice,
  browser,
  credentialsConfig,
  EXPRESS,
  rawRequest,
  SESSION_COOKIE,
  type Served,
  serve,
} from "./support.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** An app with `before` in front of the Gatehouse router, and a route after it that reads JSON. */
async function start(before?: (app: Express) => void): Promise<Served> {
  const app = express();
  before?.(app);
  app.use(gatehouse(credentialsConfig()));
  app.post("/echo", express.json(), (req, res) => {
    res.json({ body: req.body ?? null });
  });
  served = await serve(app);
  return served;
}

describe(EXPRESS, () => {
  const parsers: [string, (app: Express) => void][] = [
    ["no body parser", () => {}],
    [
      "express.json() and express.urlencoded({ extended: true })",
      (app) => {
        app.use(express.json());
        app.use(express.urlencoded({ extended: true }));
      },
    ],
    [
      "express.urlencoded({ extended: false }) and express.json()",
      (app) => {
        app.use(express.urlencoded({ extended: false }));
        app.use(express.json());
      },
    ],
    [
      "express.json() alone, which leaves a form unread",
      (app) => {
        app.use(express.json());
      },
    ],
    [
      "a parser that sets req.body = {} without reading the body (body-parser 1.x, for other types)",
      (app) =>
        app.use((req, _res, next) => {
          req.body ??= {};
          next();
        }),
    ],
    ["express.raw() for every type", (app) => app.use(express.raw({ type: "*/*" }))],
    ["express.text() for every type", (app) => app.use(express.text({ type: "*/*" }))],
  ];

  describe.each(parsers)("with %s in front of the router", (_, before) => {
    test("a credentials form signs in", async () => {
      const { origin } = await start(before);
      const client = browser(origin);
      const callback = await client.signIn();
      expect(callback.status).toBe(302);
      expect(callback.headers.get("location")).toBe(`${origin}/account`);
      expect(client.jar.names()).toContain(SESSION_COOKIE);
      expect((await client.session())?.user?.email).toBe(alice.email);
    });

    test("a JSON sign-in signs in too", async () => {
      const { origin } = await start(before);
      const client = browser(origin);
      const csrfToken = await client.csrf();
      const callback = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        headers: { "content-type": "application/json", "x-auth-return-redirect": "1" },
        body: JSON.stringify({ csrfToken, username: "alice", password: "wonderland" }),
      });
      expect(callback.status).toBe(200);
      expect(client.jar.names()).toContain(SESSION_COOKIE);
    });

    test("a wrong password in the parsed form is still wrong", async () => {
      const { origin } = await start(before);
      const client = browser(origin);
      const callback = await client.signIn("wonderland2");
      expect(callback.headers.get("location")).toContain("error=CredentialsSignin");
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
    });

    test("a body over 64 KiB with its length is refused with 413", async () => {
      const { origin } = await start(before);
      const client = browser(origin);
      const csrfToken = await client.csrf();
      const big = "x".repeat(70 * 1024);
      const form = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland", big }),
      });
      expect(form.status).toBe(413);
      const json = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csrfToken, username: "alice", password: "wonderland", big }),
      });
      expect(json.status).toBe(413);
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
      // The server goes on answering.
      expect((await client.signIn()).status).toBe(302);
    });
  });

  describe("a streamed body", () => {
    test("over 64 KiB without a length (chunked) is refused with 413 before it is all read", async () => {
      const { origin, port } = await start();
      const client = browser(origin);
      const csrfToken = await client.csrf();
      const head = new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" });
      const answer = await rawRequest(port, {
        method: "POST",
        path: "/api/auth/callback/credentials",
        headers: {
          cookie: client.jar.header(),
          "content-type": "application/x-www-form-urlencoded",
          "transfer-encoding": "chunked",
        },
        chunks: [`${head}&big=`, ...Array.from({ length: 9 }, () => "y".repeat(8 * 1024))],
      });
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe("close");
      expect(answer.headers["set-cookie"]?.some((c) => c.startsWith(SESSION_COOKIE))).toBeFalsy();
    });

    test("declaring a length over 64 KiB is refused with 413 and the connection closed", async () => {
      const { origin, port } = await start();
      const client = browser(origin);
      const csrfToken = await client.csrf();
      const body = `${new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" })}&big=${"w".repeat(90 * 1024)}`;
      const answer = await rawRequest(port, {
        method: "POST",
        path: "/api/auth/callback/credentials",
        headers: {
          cookie: client.jar.header(),
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(Buffer.byteLength(body)),
        },
        chunks: [body],
      });
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe("close");
    });

    test("just under the limit, in chunks without a length, signs in", async () => {
      const { origin, port } = await start();
      const client = browser(origin);
      const csrfToken = await client.csrf();
      const head = new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" });
      const answer = await rawRequest(port, {
        method: "POST",
        path: "/api/auth/callback/credentials",
        headers: {
          cookie: client.jar.header(),
          "content-type": "application/x-www-form-urlencoded",
          "transfer-encoding": "chunked",
        },
        chunks: [`${head}&pad=`, ...Array.from({ length: 7 }, () => "z".repeat(8 * 1024))],
      });
      expect(answer.status).toBe(302);
      expect(answer.headers["set-cookie"]?.some((c) => c.startsWith(SESSION_COOKIE))).toBe(true);
    });

    test("is left unread for the app's routes outside the prefix", async () => {
      const { origin } = await start();
      const answer = await fetch(`${origin}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ hello: "world" }),
      });
      expect(await answer.json()).toEqual({ body: { hello: "world" } });
    });
  });
});
