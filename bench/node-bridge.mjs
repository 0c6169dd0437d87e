/**
 * `node:http` around a web handler, and a keep-alive client, for the over-HTTP rows of
 * `three-way.mjs`. Gatehouse and @auth/core take a web `Request` and answer a web `Response`, and
 * neither ships a `node:http` adapter of its own, so both are served through this one bridge;
 * Better Auth is served through its own `toNodeHandler`. The bridge does what any such adapter
 * must: build the `Request` from the incoming message, then write the status, the headers (each
 * `Set-Cookie` on its own line) and the body back.
 */
import { Agent, createServer, request as httpRequest } from "node:http";
import { Readable } from "node:stream";

/**
 * A `node:http` request listener that answers through `handle(request) → Response`. A handler
 * that throws gets a bare 500 and `onError(error)`, so the bench can stop on it.
 */
export function nodeListener(handle, onError) {
  return async (incoming, outgoing) => {
    try {
      const headers = new Headers();
      const raw = incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
      const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`);
      const method = incoming.method ?? "GET";
      const bodyless = method === "GET" || method === "HEAD";
      const request = new Request(url, {
        method,
        headers,
        ...(bodyless ? {} : { body: Readable.toWeb(incoming), duplex: "half" }),
      });
      const response = await handle(request);
      outgoing.statusCode = response.status;
      for (const [name, value] of response.headers) {
        if (name !== "set-cookie") outgoing.setHeader(name, value);
      }
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) outgoing.setHeader("set-cookie", cookies);
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      // A thrown handler must not leave the client waiting; the timed op then sees the 500.
      onError(error);
      outgoing.statusCode = 500;
      outgoing.end();
    }
  };
}

/** Starts a server on 127.0.0.1, a free port; resolves to `{ port, close() }`. */
export function listen(listener) {
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A keep-alive client for one server: one socket (`maxSockets: 1`), reused for every request,
 * from this process. `get(path, headers)` resolves to `{ status, headers, body }` with the body
 * read in full as text.
 */
export function keepAliveClient(port) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path, headers) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        { agent, host: "127.0.0.1", port, path, method: "GET", headers },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}
