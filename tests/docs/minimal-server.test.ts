/**
 * The README's minimal server, run as it is printed: the block marked
 * `<!-- docs-check: run (…) -->` is written to a file and imported, and listens on a free
 * port on 127.0.0.1. A real sign-in over HTTP then goes through it: CSRF token, credentials
 * callback, session.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { type Block, documentationBlocks, root } from "./markdown.js";

const [block, ...others]: Block[] = documentationBlocks().filter(
  (b) => b.file === "README.md" && b.marker?.kind === "run",
);
const folder = join(root, ".tmp", `docs-minimal-server-${process.pid}`);

let server: Server | undefined;
let origin = "";

/** The session cookies a response sets, as one Cookie header, merged into `jar`. */
function keep(jar: Map<string, string>, response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

async function signIn(email: string, password: string) {
  const jar = new Map<string, string>();
  const csrf = await fetch(`${origin}/auth/csrf`);
  expect(csrf.status).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const callback = await fetch(`${origin}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: keep(jar, csrf),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${origin}/` }),
  });
  const cookie = keep(jar, callback);
  const session = await fetch(`${origin}/auth/session`, { headers: { cookie } });
  return { callback, session, jar };
}

describe("the README's minimal server", () => {
  beforeAll(async () => {
    expect(block, "README.md has one block marked <!-- docs-check: run (…) -->").toBeDefined();
    expect(others).toEqual([]);
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "server.ts");
    writeFileSync(file, block!.code);
    // The server the snippet starts, caught as it listens.
    const listen = vi.spyOn(Server.prototype, "listen");
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.stubEnv("AUTH_SECRET", "docs-test-secret-".repeat(3));
    vi.stubEnv("PORT", "0");
    await import(file);
    server = listen.mock.contexts.find((s) => s instanceof Server);
    expect(server).toBeDefined();
    listen.mockRestore();
    if (!server!.listening) await new Promise((ok) => server!.once("listening", ok));
    const { address, port } = server!.address() as AddressInfo;
    expect(address).toBe("127.0.0.1");
    origin = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    if (server?.listening) await new Promise((done) => server!.close(done));
    rmSync(folder, { recursive: true, force: true });
  });

  test("serves the app and the sign-in page", async () => {
    const home = await fetch(`${origin}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe("Hello");
    const page = await fetch(`${origin}/auth/signin`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain('name="password"');
  });

  test("signs in the demo user with the password the README gives", async () => {
    expect(block!.code).toContain('"correct horse battery staple"');
    const { callback, session, jar } = await signIn(
      "ada@example.com",
      "correct horse battery staple",
    );
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe(`${origin}/`);
    expect([...jar.keys()]).toContain("authjs.session-token");
    expect(session.status).toBe(200);
    expect(await session.json()).toMatchObject({
      user: { name: "Ada", email: "ada@example.com" },
      expires: expect.any(String),
    });
  });

  test("a wrong password is refused, and no session starts", async () => {
    const { callback, session, jar } = await signIn("ada@example.com", "wrong");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toMatch(/error=CredentialsSignin/);
    expect([...jar.keys()]).not.toContain("authjs.session-token");
    expect(await session.json()).toBeNull();
  });

  test("a body streams through the bridge: an oversized one is refused by Gatehouse", async () => {
    const response = await fetch(`${origin}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `email=${"a".repeat(70 * 1024)}`,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "PayloadTooLarge" });
  });
});
