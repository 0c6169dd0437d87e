/**
 * `createSessionSource` of `@gatehousejs/core/client`: the session read from the auth route,
 * told to a framework's state through `onChange`, the latest answer winning, and followed
 * across this client's sign-ins and sign-outs until stopped.
 */
import {
  configureClient,
  createSessionSource,
  type Session,
  signIn,
  signOut,
  statusOf,
} from "@gatehousejs/core/client";
import { afterEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { credentialsConfig, ORIGIN } from "./helpers.js";

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

const config = () => credentialsConfig({ basePath: "/api/auth" });
const sessionReads = (sent: { url: URL }[]) =>
  sent.filter((s) => s.url.pathname === "/api/auth/session").length;

describe("createSessionSource", () => {
  test("fetches nothing until asked: it can be made while rendering on the server", async () => {
    const browser = browserOn(config());
    const source = createSessionSource();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(browser.sent).toEqual([]);
    expect(source.current()).toBeUndefined();
  });

  test("refetch reads the session, tells onChange and keeps it as current", async () => {
    browserOn(config());
    const seen: (Session | null)[] = [];
    const source = createSessionSource({ onChange: (session) => seen.push(session) });
    expect(await source.refetch()).toBeNull();
    expect(source.current()).toBeNull();
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const session = await source.refetch();
    expect(session?.user?.name).toBe("Alice");
    expect(seen.map((s) => s?.user?.name ?? null)).toEqual([null, "Alice"]);
  });

  test("follow refetches after each sign-in and sign-out that stays on the page, until stopped", async () => {
    const browser = browserOn(config());
    const names: (string | null)[] = [];
    const source = createSessionSource({
      onChange: (session) => names.push(session?.user?.name ?? null),
    });
    const stop = source.follow();
    await vi.waitFor(() => expect(names).toEqual([null]));
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    await vi.waitFor(() => expect(names).toEqual([null, "Alice"]));
    await signOut({ redirect: false });
    await vi.waitFor(() => expect(names).toEqual([null, "Alice", null]));
    stop();
    const before = sessionReads(browser.sent);
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sessionReads(browser.sent)).toBe(before);
    expect(names).toEqual([null, "Alice", null]);
  });

  test("answers arriving out of order: only the latest request's becomes the value", async () => {
    browserOn(config());
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const real = globalThis.fetch;
    const gates: (() => void)[] = [];
    // The first read is held back until the second has answered.
    vi.stubGlobal("fetch", async (input: string, init?: RequestInit) => {
      const answer = await real(input, init);
      if (gates.length === 0) await new Promise<void>((resolve) => gates.push(resolve));
      return answer;
    });
    const seen: (string | null)[] = [];
    const source = createSessionSource({
      onChange: (session) => seen.push(session?.user?.name ?? null),
    });
    const older = source.refetch();
    await vi.waitFor(() => expect(gates).toHaveLength(1));
    vi.stubGlobal("fetch", async () => Response.json({}));
    expect(await source.refetch()).toBeNull();
    gates[0]!();
    expect((await older)?.user?.name).toBe("Alice");
    expect(seen).toEqual([null]);
    expect(source.current()).toBeNull();
  });

  test("a failed first read ends loading as signed out; the refetch rejects with the status", async () => {
    const browser = browserOn(credentialsConfig({ basePath: "/gate" }));
    const seen: (Session | null)[] = [];
    const source = createSessionSource({ onChange: (session) => seen.push(session) });
    await expect(source.refetch()).rejects.toThrow(/answered 4\d\d for the session/);
    expect(seen).toEqual([null]);
    expect(browser.sent[0]?.url.href).toBe(`${ORIGIN}/api/auth/session`);
  });

  test("update posts { csrfToken, data } to the session and takes the answer", async () => {
    const browser = browserOn(
      credentialsConfig({
        basePath: "/api/auth",
        callbacks: {
          jwt: ({ token, trigger, session }) =>
            trigger === "update" ? { ...token, name: (session as { name: string }).name } : token,
        },
      }),
    );
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const source = createSessionSource();
    const updated = await source.update({ name: "Alice Liddell" });
    expect(updated?.user?.name).toBe("Alice Liddell");
    expect(source.current()?.user?.name).toBe("Alice Liddell");
    const post = browser.sent.filter((s) => s.method === "POST").at(-1)!;
    expect(post.url.pathname).toBe("/api/auth/session");
    expect(JSON.parse(post.body)).toEqual({
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
      data: { name: "Alice Liddell" },
    });
  });

  test("the base path: its own option, else configureClient's", async () => {
    const browser = browserOn(credentialsConfig({ basePath: "/gate" }));
    expect(await createSessionSource({ basePath: "/gate" }).refetch()).toBeNull();
    configureClient({ basePath: "/gate/" });
    expect(await createSessionSource().refetch()).toBeNull();
    expect(browser.sent.map((s) => s.url.pathname)).toEqual(["/gate/session", "/gate/session"]);
  });
});

test("statusOf: loading, authenticated, unauthenticated", () => {
  expect(statusOf(undefined)).toBe("loading");
  expect(statusOf(null)).toBe("unauthenticated");
  expect(statusOf({ expires: "2030-01-01T00:00:00.000Z" })).toBe("authenticated");
});
