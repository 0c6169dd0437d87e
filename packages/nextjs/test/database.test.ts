/**
 * The database strategy: `auth()` and the proxy read the session row, and a session ended on
 * the server (`revokeSession`) is null in a Server Component, refused by the proxy and cleared
 * where cookies can be set.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Gatehouse, { type AuthConfig, listSessions, revokeSession } from "@gatehousejs/nextjs";
import { NextRequest } from "next/server.js";
import { describe, expect, it, vi } from "vitest";
import { serve } from "./next-mock.js";
import { alice, credentialsConfig, ORIGIN, SESSION_COOKIE } from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);

/** A config on the database strategy with alice's session stored; its token is the cookie. */
async function storedSession() {
  const adapter = MemoryAdapter();
  await adapter.createUser({ ...alice, id: alice.id!, email: alice.email!, emailVerified: null });
  const sessionToken = crypto.randomUUID();
  await adapter.createSession({
    sessionToken,
    userId: alice.id!,
    expires: new Date(Date.now() + 3600_000),
  });
  const config = credentialsConfig({
    adapter,
    session: { strategy: "database" },
    protect: ["/dashboard"],
  });
  return { config, cookie: `${SESSION_COOKIE}=${sessionToken}` };
}

function visit(path: string, cookie: string): NextRequest {
  return new NextRequest(`${ORIGIN}${path}`, {
    headers: { host: new URL(ORIGIN).host, cookie },
  });
}

describe("the database strategy", () => {
  it("reads the stored session in a Server Component and in the proxy", async () => {
    const { config, cookie } = await storedSession();
    const { auth } = Gatehouse(config);
    serve({ cookie });
    expect((await auth())?.user?.email).toBe(alice.email);
    const response = await auth(visit("/dashboard", cookie));
    expect(response.headers.get("x-middleware-next")).toBe("1");
  });

  it("a session ended on the server is null everywhere", async () => {
    const { config, cookie } = await storedSession();
    const { auth } = Gatehouse(config);
    const [stored] = await listSessions(config as AuthConfig, alice.id!);
    expect(await revokeSession(config as AuthConfig, alice.id!, stored!.id)).toBe(true);

    serve({ cookie });
    await expect(auth()).resolves.toBeNull();
    const sets = serve({ cookie, writable: true });
    await expect(auth()).resolves.toBeNull();
    expect(sets.find((s) => s.name === SESSION_COOKIE)?.value).toBe("");
    const response = await auth(visit("/dashboard", cookie));
    expect(response.status).toBe(302);
  });
});
