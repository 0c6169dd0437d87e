/**
 * A tiny OAuth 2 provider on 127.0.0.1 for the callback scenario, run in a child process so its
 * work is not on the bench's event loop (a real provider is another machine; here it is another
 * core, and its answer time is in both libraries' figures alike).
 *
 * POST /token answers any authorization code with a bearer token, after checking what every
 * well-behaved client must send: `grant_type=authorization_code`, the code, `redirect_uri`, a
 * PKCE `code_verifier`, and the client's credentials (HTTP Basic or in the body).
 * GET /userinfo answers `{ id, name, email }` for a token it issued. GET /stats counts both.
 */
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

export const CLIENT_ID = "bench-client";
export const CLIENT_SECRET = "bench-client-secret";
export const PROFILE = { id: "4242", name: "Ada Lovelace", email: "ada@example.com" };

function clientOf(request, form) {
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? "");
  if (basic) {
    const [id, secret] = Buffer.from(basic[1], "base64")
      .toString()
      .split(":")
      .map(decodeURIComponent);
    return { id, secret };
  }
  return { id: form.get("client_id"), secret: form.get("client_secret") };
}

function serve() {
  const stats = { token: 0, userinfo: 0, rejected: 0 };
  let issued = 0;
  const json = (response, status, body) => {
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url, "http://127.0.0.1");
    if (request.method === "POST" && pathname === "/token") {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        const form = new URLSearchParams(body);
        const client = clientOf(request, form);
        const ok =
          form.get("grant_type") === "authorization_code" &&
          !!form.get("code") &&
          !!form.get("redirect_uri") &&
          /^[A-Za-z0-9._~-]{43,128}$/.test(form.get("code_verifier") ?? "") &&
          client.id === CLIENT_ID &&
          client.secret === CLIENT_SECRET;
        if (!ok) {
          stats.rejected++;
          return json(response, 400, { error: "invalid_request" });
        }
        stats.token++;
        json(response, 200, {
          access_token: `at-${++issued}`,
          token_type: "bearer",
          expires_in: 3600,
        });
      });
      return;
    }
    if (request.method === "GET" && pathname === "/userinfo") {
      const token = /^Bearer (at-\d+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (!token || Number(token.slice(3)) > issued) {
        stats.rejected++;
        return json(response, 401, { error: "invalid_token" });
      }
      stats.userinfo++;
      return json(response, 200, PROFILE);
    }
    if (request.method === "GET" && pathname === "/stats") return json(response, 200, stats);
    json(response, 404, { error: "not_found" });
  });
  // Keep the clients' pooled connections open across the bench's pauses.
  server.keepAliveTimeout = 120_000;
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
  // The bench went away (or closed the channel): so do we.
  process.on("disconnect", () => process.exit(0));
}

/** Starts the provider in a child process; resolves with its base URL and a `stop()`. */
export function startProvider() {
  const child = fork(fileURLToPath(import.meta.url), ["serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the OAuth provider exited (${code})`)));
    child.once("message", ({ port }) => {
      const base = `http://127.0.0.1:${port}`;
      resolve({
        base,
        stats: async () => (await fetch(`${base}/stats`)).json(),
        stop: () => {
          child.removeAllListeners("exit");
          child.disconnect();
        },
      });
    });
  });
}

if (process.argv[2] === "serve" && process.send) serve();
