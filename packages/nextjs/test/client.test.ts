/**
 * `SessionProvider` and `useSession()` rendered on the server (as in a streamed page's first
 * HTML): the seeded session shows at once, without one the status is loading, and the hook
 * refuses to run outside a provider. Their life in a browser is tested in
 * fixture-browser.test.ts.
 */
import { SessionProvider, useSession } from "@gatehousejs/nextjs/client";
import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";

function Status() {
  const { data, status } = useSession();
  return h("p", null, `${status}:${data?.user?.email ?? "none"}`);
}

const session = { user: { name: "Alice", email: "alice@example.com" }, expires: "2099-01-01" };

describe("SessionProvider on the server", () => {
  it("renders the session it was seeded with, signed in or out, without fetching", () => {
    const fetch = vi.spyOn(globalThis, "fetch");
    expect(renderToString(h(SessionProvider, { session }, h(Status)))).toContain(
      "authenticated:alice@example.com",
    );
    expect(renderToString(h(SessionProvider, { session: null }, h(Status)))).toContain(
      "unauthenticated:none",
    );
    expect(fetch).not.toHaveBeenCalled();
    fetch.mockRestore();
  });

  it("is loading when no session was handed to it", () => {
    expect(renderToString(h(SessionProvider, null, h(Status)))).toContain("loading:none");
  });

  it("useSession() outside a provider throws", () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(() => renderToString(h(Status))).toThrow(/SessionProvider/);
    vi.restoreAllMocks();
  });
});
