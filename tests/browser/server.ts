/**
 * A real HTTP server on 127.0.0.1 for browser tests: `/auth/*` goes through `Auth()`, `/` is a
 * tiny home page with a link to the sign-in page (the tests click it, as a person would). Node's request and response are bridged to web `Request` and `Response`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Auth } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";

export interface TestServer {
  origin: string;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
  return new Request(new URL(req.url ?? "/", origin), {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
}

/** Starts the server; the origin uses `localhost` so that it is a WebAuthn secure context. */
export async function startServer(config: AuthConfig): Promise<TestServer> {
  let origin = "";
  const server: Server = createServer((req, res) => {
    (async () => {
      const request = await toRequest(req, origin);
      const response = new URL(request.url).pathname.startsWith("/auth/")
        ? await Auth(request, config)
        : new Response(
            '<!DOCTYPE html><html lang="en"><title>Home</title><h1>Home</h1>' +
              '<a id="sign-in" href="/auth/signin">Sign in</a> ' +
              '<a id="sign-out" href="/auth/signout">Sign out</a></html>',
            { headers: { "content-type": "text/html; charset=utf-8" } },
          );
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== "set-cookie") headers[name] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length) headers["set-cookie"] = cookies;
      res.writeHead(response.status, headers);
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  origin = `http://localhost:${port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
