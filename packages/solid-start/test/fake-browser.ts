/**
 * A fake browser for the client tests: \`fetch\` and \`location\` stubbed, requests handed to a
 * real SolidAuth handler with a cookie jar.
 */
import { SolidAuth, type SolidAuthConfig } from "@gatehousejs/solid-start";
import { vi } from "vitest";
import { Jar, ORIGIN } from "./support.js";

/** What the fake browser sent, for assertions on the protocol. */
export interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/**
 * A browser for the client: `fetch` resolves relative URLs against the page, carries the cookie
 * jar and hands the request to a real SolidAuth handler; `location` records navigations.
 */
export function fakeBrowser(config: SolidAuthConfig, page = `${ORIGIN}/start`) {
  const handlers = SolidAuth(config);
  const jar = new Jar();
  const sent: Sent[] = [];
  const navigations: string[] = [];
  const reload = vi.fn();
  let href = page;
  const location = {
    get href() {
      return href;
    },
    set href(value: string) {
      href = new URL(value, href).href;
      navigations.push(href);
    },
    reload,
  };
  const fetchFake = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), href);
    const headers = new Headers(init?.headers);
    if (jar.cookies.size > 0) headers.set("cookie", jar.header());
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    const request = new Request(url, { method: init?.method ?? "GET", headers, body });
    sent.push({ method: request.method, url, headers, body: body ?? "" });
    const response =
      request.method === "POST"
        ? await handlers.POST({ request })
        : await handlers.GET({ request });
    if (!response) return new Response("Not found", { status: 404 });
    jar.apply(response);
    return response;
  });
  /** Makes this browser the one the client code sees (another fake browser may have taken over). */
  const use = () => {
    vi.stubGlobal("fetch", fetchFake);
    vi.stubGlobal("location", location);
  };
  use();
  return { jar, sent, navigations, reload, location, fetch: fetchFake, use };
}
