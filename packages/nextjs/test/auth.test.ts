/**
 * `auth()` with no argument, as Server Components, Server Actions and Route Handlers call it:
 * the session from `next/headers`, renewed through `cookies().set` only where Next.js allows it.
 */
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import Gatehouse, { type AuthConfig, listSessions, revokeUserSessions } from "@gatehousejs/nextjs";
import { describe, expect, it, vi } from "vitest";
import { refusedSets, serve } from "./next-mock.js";
import { alice, credentialsConfig, SESSION_COOKIE, signedInCookie } from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("auth() with no argument", () => {
  it("is null without a session cookie", async () => {
    const { auth } = Gatehouse(credentialsConfig());
    serve();
    await expect(auth()).resolves.toBeNull();
  });

  it("reads the session of the request's cookie in a Server Component", async () => {
    const config = credentialsConfig();
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ cookie: `${SESSION_COOKIE}=${cookie}` });
    const session = await auth();
    expect(session?.user).toMatchObject({ name: alice.name, email: alice.email });
    expect(sets).toEqual([]);
  });

  it("never sets a cookie in a Server Component, even when the session is due for renewal", async () => {
    const config = credentialsConfig({ session: { updateAge: 0 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ cookie: `${SESSION_COOKIE}=${cookie}`, writable: false });
    const session = await auth();
    expect(session?.user?.email).toBe(alice.email);
    expect(sets).toEqual([]);
    // Not even tried: Next's read-only store is recognised before any set.
    expect(refusedSets()).toBe(0);
  });

  it("re-issues a session due for renewal in a Server Action or Route Handler", async () => {
    const config = credentialsConfig({ session: { maxAge: 3600, updateAge: 1 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    await sleep(1100);
    const sets = serve({ cookie: `${SESSION_COOKIE}=${cookie}`, writable: true });
    expect((await auth())?.user?.email).toBe(alice.email);
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({ name: SESSION_COOKIE, options: { httpOnly: true, path: "/" } });
    expect(sets[0]?.value).not.toBe(cookie);
    expect(sets[0]?.options.expires).toBeInstanceOf(Date);
  });

  it("does not re-issue a session before updateAge has passed", async () => {
    const config = credentialsConfig({ session: { maxAge: 3600, updateAge: 600 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ cookie: `${SESSION_COOKIE}=${cookie}`, writable: true });
    expect((await auth())?.user?.email).toBe(alice.email);
    expect(sets).toEqual([]);
  });

  it("is null for a session revoked in the revocation store, and clears its cookie where it can", async () => {
    const store = MemoryRevocationStore();
    const config = credentialsConfig({ session: { strategy: "jwt", revocation: { store } } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    serve({ cookie: `${SESSION_COOKIE}=${cookie}` });
    expect(await auth()).not.toBeNull();
    await revokeUserSessions(config as AuthConfig, alice.id!);
    serve({ cookie: `${SESSION_COOKIE}=${cookie}` });
    await expect(auth()).resolves.toBeNull();
    const sets = serve({ cookie: `${SESSION_COOKIE}=${cookie}`, writable: true });
    await expect(auth()).resolves.toBeNull();
    expect(sets.map((s) => s.name)).toContain(SESSION_COOKIE);
  });

  it("uses the secure cookie name when the request came over HTTPS", async () => {
    const config = credentialsConfig();
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    serve({
      cookie: `${SESSION_COOKIE}=${cookie}`,
      headers: { "x-forwarded-proto": "https" },
    });
    // Over HTTPS the session cookie is __Secure-authjs.session-token: the plain one is not read.
    await expect(auth()).resolves.toBeNull();
    serve({
      cookie: `__Secure-${SESSION_COOKIE}=${cookie}`,
      headers: { "x-forwarded-proto": "https" },
    });
    // The value was sealed under the plain name's salt, so the secure name cannot open it.
    await expect(auth()).resolves.toBeNull();
  });

  it("reads each request by its own scheme and host, whatever the requests before it", async () => {
    const config = credentialsConfig();
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const plain = `${SESSION_COOKIE}=${cookie}`;
    const over = (proto: string, host = "localhost:3000") =>
      serve({ cookie: plain, headers: { "x-forwarded-proto": proto, host } });
    over("http");
    expect((await auth())?.user?.email).toBe(alice.email);
    over("https");
    await expect(auth()).resolves.toBeNull();
    over("http", "other.example");
    expect((await auth())?.user?.email).toBe(alice.email);
    over("https", "other.example");
    await expect(auth()).resolves.toBeNull();
    over("http");
    expect((await auth())?.user?.email).toBe(alice.email);
  });

  it("takes the scheme of a pinned url over the request's", async () => {
    const config = credentialsConfig({ url: "https://app.example" });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(credentialsConfig());
    // The site is https: the session cookie is the __Secure- one, and the plain one is not read.
    serve({ cookie: `${SESSION_COOKIE}=${cookie}`, headers: { host: "app.example" } });
    await expect(auth()).resolves.toBeNull();
    const open = Gatehouse(credentialsConfig());
    serve({ cookie: `${SESSION_COOKIE}=${cookie}`, headers: { host: "app.example" } });
    expect((await open.auth())?.user?.email).toBe(alice.email);
  });

  it("records a renewed session with the request's client, the clientAddress hook reading its headers", async () => {
    const store = MemoryRevocationStore();
    const config = credentialsConfig({
      session: { strategy: "jwt", revocation: { store }, recordIp: true, updateAge: 0 },
      clientAddress: (request) => request.headers.get("x-real-ip"),
    });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const agent =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const sets = serve({
      cookie: `${SESSION_COOKIE}=${cookie}`,
      writable: true,
      headers: { "x-real-ip": "203.0.113.9", "user-agent": agent },
    });
    expect((await auth())?.user?.email).toBe(alice.email);
    expect(sets.map((c) => c.name)).toEqual([SESSION_COOKIE]);
    const sessions = await listSessions(config as AuthConfig, alice.id!);
    expect(sessions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ client: "Chrome 131 on macOS", ip: "203.0.113.0" }),
      ]),
    );
  });

  it("takes a function of the request as its configuration (lazy initialisation)", async () => {
    const config = credentialsConfig();
    const seen: Array<Request | undefined> = [];
    const { auth } = Gatehouse((request) => {
      seen.push(request);
      return config;
    });
    const cookie = await signedInCookie(config);
    serve({ cookie: `${SESSION_COOKIE}=${cookie}` });
    expect((await auth())?.user?.email).toBe(alice.email);
    expect(seen).toEqual([undefined]);
  });
});
