/**
 * `handlers` of `app/api/auth/[...gatehouse]/route.ts`, and the environment read as next-auth v5
 * reads it (`AUTH_*`, with `NEXTAUTH_SECRET` / `NEXTAUTH_URL` as fallbacks, the mount path from
 * `basePath` or `AUTH_URL`).
 */
import Gatehouse from "@gatehousejs/nextjs";
import { NextRequest } from "next/server.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { credentialsConfig, ORIGIN, SESSION_COOKIE, signedInCookie } from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);

/** A request as Next.js hands it to a Route Handler: its own address, the browser's Host. */
function routeRequest(path: string, init: { cookie?: string; host?: string } = {}): NextRequest {
  const headers = new Headers({ host: init.host ?? new URL(ORIGIN).host });
  if (init.cookie) headers.set("cookie", init.cookie);
  return new NextRequest(`http://127.0.0.1:4321${path}`, { headers });
}

const saved = { ...process.env };
afterEach(() => {
  for (const key of ["AUTH_SECRET", "NEXTAUTH_SECRET", "AUTH_URL", "NEXTAUTH_URL"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe("handlers", () => {
  it("answers the auth route's actions at the browser's origin", async () => {
    const config = credentialsConfig();
    const { handlers } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const session = await handlers.GET(
      routeRequest("/api/auth/session", { cookie: `${SESSION_COOKIE}=${cookie}` }),
    );
    expect(await session.json()).toMatchObject({ user: { email: "alice@example.com" } });
    const providers = await handlers.GET(routeRequest("/api/auth/providers"));
    expect(await providers.json()).toMatchObject({
      credentials: { callbackUrl: `${ORIGIN}/api/auth/callback/credentials` },
    });
  });

  it("signs in with a form posted to the callback (POST)", async () => {
    const { handlers } = Gatehouse(credentialsConfig());
    const csrf = await handlers.GET(routeRequest("/api/auth/csrf"));
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers.getSetCookie()[0]!.split(";")[0]!;
    const response = await handlers.POST(
      new NextRequest("http://127.0.0.1:4321/api/auth/callback/credentials", {
        method: "POST",
        headers: {
          host: new URL(ORIGIN).host,
          cookie: csrfCookie,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
      }),
    );
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(
      true,
    );
  });

  it("mounts on basePath when the config sets it", async () => {
    const { handlers } = Gatehouse(credentialsConfig({ basePath: "/auth" }));
    expect((await handlers.GET(routeRequest("/auth/session"))).status).toBe(200);
    const outside = await handlers.GET(routeRequest("/api/auth/session"));
    expect(outside.status).toBe(400);
  });

  it("reads the mount path from AUTH_URL's path, as next-auth does", async () => {
    process.env.AUTH_URL = `${ORIGIN}/custom/auth`;
    const { handlers } = Gatehouse(credentialsConfig());
    expect((await handlers.GET(routeRequest("/custom/auth/session"))).status).toBe(200);
  });

  it("takes the secret from AUTH_SECRET, or NEXTAUTH_SECRET as next-auth does", async () => {
    const config = credentialsConfig();
    const cookie = await signedInCookie(config);
    for (const name of ["AUTH_SECRET", "NEXTAUTH_SECRET"]) {
      delete process.env.AUTH_SECRET;
      delete process.env.NEXTAUTH_SECRET;
      process.env[name] = config.secret as string;
      const { handlers } = Gatehouse(credentialsConfig({ secret: undefined }));
      const session = await handlers.GET(
        routeRequest("/api/auth/session", { cookie: `${SESSION_COOKIE}=${cookie}` }),
      );
      expect(await session.json()).toMatchObject({ user: { name: "Alice" } });
    }
  });

  it("refuses another host than the pinned AUTH_URL", async () => {
    process.env.AUTH_URL = ORIGIN;
    const { handlers } = Gatehouse(credentialsConfig({ trustHost: false }));
    const response = await handlers.GET(
      routeRequest("/api/auth/session", { host: "evil.example" }),
    );
    // With AUTH_URL pinned the public origin is AUTH_URL's: the answer never names evil.example.
    const providers = await handlers.GET(
      routeRequest("/api/auth/providers", { host: "evil.example" }),
    );
    expect(response.status).toBe(200);
    expect(JSON.stringify(await providers.json())).not.toContain("evil.example");
  });
});
