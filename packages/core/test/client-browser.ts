/**
 * A browser for the client tests of `@gatehousejs/core/client`: `fetch` and `location`
 * stubbed, requests resolved against the page and handed to core's `Auth()` with a cookie jar.
 */
import { Auth } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";
import { vi } from "vitest";
import { Jar, ORIGIN } from "./helpers.js";

/** What the browser sent, for assertions on the protocol. */
export interface Sent {
  method: string;
  url: URL;
  body: string;
}

/**
 * Makes a browser on `page` the one the client sees; its requests go to `Auth(request, config)`.
 * Undo with `vi.unstubAllGlobals()`.
 */
export function browserOn(config: AuthConfig, page = `${ORIGIN}/start`) {
  const jar = new Jar();
  const sent: Sent[] = [];
  const navigations: string[] = [];
  let href = page;
  const location = {
    get href() {
      return href;
    },
    set href(value: string) {
      href = new URL(value, href).href;
      navigations.push(href);
    },
    reload: vi.fn(),
  };
  const fetchStub = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), href);
    const headers = new Headers(init?.headers);
    if (jar.cookies.size > 0) headers.set("cookie", jar.header());
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    sent.push({ method: init?.method ?? "GET", url, body: body ?? "" });
    const request = new Request(url, { method: init?.method ?? "GET", headers, body });
    return jar.take(await Auth(request, config));
  });
  vi.stubGlobal("fetch", fetchStub);
  vi.stubGlobal("location", location);
  return { jar, sent, navigations };
}
