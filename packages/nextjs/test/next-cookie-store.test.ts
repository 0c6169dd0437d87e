/**
 * `auth()` tells a Server Component from a Server Action or Route Handler by the cookie store
 * Next.js hands out: its read-only store answers one throwing function for `set` and `delete`.
 * This holds the rule to the installed Next.js's own adapters, so an upgrade that changes them
 * fails here rather than in apps.
 */
import {
  MutableRequestCookiesAdapter,
  RequestCookiesAdapter,
} from "next/dist/server/web/spec-extension/adapters/request-cookies.js";
import { RequestCookies } from "next/dist/server/web/spec-extension/cookies.js";
import { describe, expect, it } from "vitest";

describe("Next.js's cookie stores", () => {
  it("the read-only store (Server Components) has one throwing function for set and delete", () => {
    const store = RequestCookiesAdapter.seal(new RequestCookies(new Headers()));
    expect(store.set).toBe(store.delete);
    expect(() => store.set("a", "b")).toThrow(/Server Action or Route Handler/);
  });

  it("the writable store (Server Actions, Route Handlers) has two methods", () => {
    const store = MutableRequestCookiesAdapter.wrap(new RequestCookies(new Headers()));
    expect(store.set).not.toBe(store.delete);
    store.set("a", "b");
    expect(store.get("a")?.value).toBe("b");
  });
});
