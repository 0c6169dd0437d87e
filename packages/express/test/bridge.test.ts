/**
 * The node-to-web bridge under the router, over real HTTP: repeated request headers, a client
 * that goes away, a response body streamed as it is produced.
 */
import { request as httpRequest } from "node:http";
import { gatehouse } from "@gatehousejs/express";
import express from "express";
import { afterEach, describe, expect, test, vi } from "vitest";
import { toWebRequest } from "../src/request.js";
import { sendResponse } from "../src/response.js";
import {
  alice,
  browser,
  credentialsConfig,
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

describe("request headers", () => {
  test("a header sent twice reaches the web Request twice; several Cookie headers are one", async () => {
    const app = express();
    app.get("/headers", (req, res) => {
      const request = toWebRequest(req, res);
      res.json({ custom: request.headers.get("x-custom"), cookie: request.headers.get("cookie") });
    });
    served = await serve(app);
    const answer = await rawRequest(served.port, {
      path: "/headers",
      headers: [
        "Host",
        "127.0.0.1",
        "X-Custom",
        "one",
        "X-Custom",
        "two",
        "Cookie",
        "a=1",
        "Cookie",
        "b=2; c=3",
      ],
    });
    expect(JSON.parse(answer.body)).toEqual({ custom: "one, two", cookie: "a=1; b=2; c=3" });
  });

  test("a session cookie sent in a Cookie header of its own is read", async () => {
    const app = express();
    app.use(gatehouse(credentialsConfig()));
    served = await serve(app);
    const client = browser(served.origin);
    await client.signIn();
    const session = client.jar.cookies.get(SESSION_COOKIE);
    expect(session).toBeDefined();
    const answer = await rawRequest(served.port, {
      path: "/api/auth/session",
      headers: [
        "Host",
        "127.0.0.1",
        "Cookie",
        "theme=dark",
        "Cookie",
        `${SESSION_COOKIE}=${session}`,
      ],
    });
    expect(JSON.parse(answer.body)?.user?.email).toBe(alice.email);
  });
});

describe("a client that goes away", () => {
  test("aborts the request's signal", async () => {
    const aborted = vi.fn();
    const app = express();
    app.get("/slow", (req, res) => {
      const request = toWebRequest(req, res);
      request.signal.addEventListener("abort", aborted);
      // Never answers: the client gives up first.
    });
    served = await serve(app);
    const req = httpRequest({ host: "127.0.0.1", port: served.port, path: "/slow" });
    req.on("error", () => {});
    req.end();
    await new Promise((ok) => setTimeout(ok, 50));
    expect(aborted).not.toHaveBeenCalled();
    req.destroy();
    await expect.poll(() => aborted.mock.calls.length).toBe(1);
  });

  test("mid-body ends the body's stream with an error, so nobody waits for the rest", async () => {
    const outcome = vi.fn();
    const app = express();
    app.post("/upload", (req, res) => {
      toWebRequest(req, res)
        .text()
        .then(
          () => outcome("read"),
          () => outcome("failed"),
        );
    });
    served = await serve(app);
    const req = httpRequest({
      host: "127.0.0.1",
      port: served.port,
      path: "/upload",
      method: "POST",
      headers: { "content-type": "text/plain", "transfer-encoding": "chunked" },
    });
    req.on("error", () => {});
    req.write("part of a body");
    await new Promise((ok) => setTimeout(ok, 50));
    expect(outcome).not.toHaveBeenCalled();
    req.destroy();
    await expect.poll(() => outcome.mock.calls).toEqual([["failed"]]);
  });

  test("a finished response does not abort it", async () => {
    let signal: AbortSignal | undefined;
    const app = express();
    app.get("/quick", (req, res) => {
      signal = toWebRequest(req, res).signal;
      res.send("done");
    });
    served = await serve(app);
    expect(await (await fetch(`${served.origin}/quick`)).text()).toBe("done");
    await new Promise((ok) => setTimeout(ok, 20));
    expect(signal?.aborted).toBe(false);
  });

  test("mid-response cancels the body's stream, and nothing is left unhandled", async () => {
    const cancelled = vi.fn();
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    const app = express();
    app.get("/stream", (_req, res, next) => {
      const body = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          controller.enqueue(new TextEncoder().encode("tick\n"));
          await new Promise((ok) => setTimeout(ok, 5));
        },
        cancel: cancelled,
      });
      sendResponse(new Response(body), res).catch(() => next());
    });
    served = await serve(app);
    try {
      const controller = new AbortController();
      const response = await fetch(`${served.origin}/stream`, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await expect.poll(() => cancelled.mock.calls.length).toBe(1);
      await new Promise((ok) => setTimeout(ok, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });
});

describe("a response body", () => {
  test("is streamed: the first part arrives before the last is written", async () => {
    let finish = () => {};
    const last = new Promise<void>((ok) => {
      finish = ok;
    });
    const app = express();
    app.get("/parts", (_req, res) => {
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("first;"));
          await last;
          controller.enqueue(new TextEncoder().encode("last"));
          controller.close();
        },
      });
      void sendResponse(new Response(body, { headers: { "x-part": "1" } }), res);
    });
    served = await serve(app);
    const response = await fetch(`${served.origin}/parts`);
    expect(response.headers.get("x-part")).toBe("1");
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("first;");
    finish();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("last");
  });
});
