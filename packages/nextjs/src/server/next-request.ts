/// <reference path="../next-modules.d.ts" />
/**
 * The request being served, as Next.js lets server code see it (`headers()`, `cookies()` of
 * `next/headers`), and writing cookies back where Next.js allows it.
 */
import { createActionURL } from "@gatehousejs/core";
import type { IntegrationConfig } from "@gatehousejs/core/integration";
import { resolveIntegrationConfig } from "@gatehousejs/core/integration";
import type { AuthAction, AuthConfig, Cookie } from "@gatehousejs/core/types";
import { cookies, headers } from "next/headers";
import { processEnv } from "./origin.js";

/** The scheme the request came over, as `X-Forwarded-Proto` says (`http` without one). */
function protoOf(forwardedProto: string | null): string {
  return forwardedProto?.split(",")[0]?.trim() || "http";
}

/**
 * A `Request` for an action of the auth route (`session`, `signin`, …) carrying the headers of
 * the request being served: its cookies, host and forwarding headers. The URL is built by core's
 * own rule (`url`/`AUTH_URL`, else the `Host` and, when the host is trusted, `X-Forwarded-*`),
 * so cookie names (`__Secure-` over HTTPS) match those of the auth route.
 */
export async function actionRequest(
  action: AuthAction,
  config: IntegrationConfig,
  init: {
    method?: string;
    path?: string;
    query?: URLSearchParams;
    body?: URLSearchParams;
    json?: unknown;
  } = {},
): Promise<Request> {
  const incoming = await headers();
  const { core } = resolveIntegrationConfig(config);
  const url = createActionURL(
    action,
    protoOf(incoming.get("x-forwarded-proto")),
    incoming,
    processEnv(),
    core,
  );
  if (init.path) url.pathname = `${url.pathname}/${init.path}`;
  if (init.query) for (const [key, value] of init.query) url.searchParams.append(key, value);
  const out = new Headers();
  for (const name of ["cookie", "host", "x-forwarded-host", "x-forwarded-proto", "user-agent"]) {
    const value = incoming.get(name);
    if (value !== null) out.set(name, value);
  }
  const forwardedFor = incoming.get("x-forwarded-for");
  if (forwardedFor !== null) out.set("x-forwarded-for", forwardedFor);
  let body: string | undefined;
  if (init.body) {
    out.set("content-type", "application/x-www-form-urlencoded");
    body = init.body.toString();
  } else if (init.json !== undefined) {
    out.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return new Request(url, { method: init.method ?? "GET", headers: out, body });
}

/**
 * What core's session check reads of a request (its `SessionRequestInput`): its URL and its
 * headers (the cookies, the host and forwarding headers, the user agent). Core hands this object
 * to the `clientAddress` hook as the request.
 */
export interface SessionSource {
  readonly url: string;
  readonly headers: Headers;
}

/** Session URLs by their inputs, per core configuration. */
const sessionUrls = new WeakMap<AuthConfig, Map<string, string>>();

/** A header's value as a part of a key: a header value never holds a NUL or a line break. */
const part = (value: string | null | undefined) => (value == null ? "\0" : value);

/**
 * Core's URL of the session action for these headers: what {@link actionRequest} builds, kept
 * per configuration and per value of everything `createActionURL` reads (the host and
 * forwarding headers, and the environment variables its rule falls back on when the
 * configuration leaves `url` or `trustHost` unset), so the same request shape is not parsed
 * into URLs again on every `auth()`. The `Host` comes from the client: the map is bounded.
 */
function sessionUrl(incoming: Headers, core: AuthConfig): string {
  const forwardedProto = incoming.get("x-forwarded-proto");
  let key = `${part(incoming.get("host"))}\n${part(incoming.get("x-forwarded-host"))}\n${part(forwardedProto)}`;
  const env = processEnv();
  if (core.url === undefined) key += `\n${part(env.AUTH_URL)}\n${part(env.NEXTAUTH_URL)}`;
  if (core.trustHost === undefined) {
    key += `\n${part(env.AUTH_TRUST_HOST)}\n${part(env.VERCEL)}\n${part(env.CF_PAGES)}`;
  }
  let known = sessionUrls.get(core);
  if (!known) {
    known = new Map();
    sessionUrls.set(core, known);
  }
  let url = known.get(key);
  if (url === undefined) {
    url = createActionURL("session", protoOf(forwardedProto), incoming, env, core).href;
    if (known.size >= 64) known.clear();
    known.set(key, url);
  }
  return url;
}

/**
 * The request being served, as core's session check reads it, from the headers `headers()` of
 * `next/headers` answered: the URL of the session action (as {@link actionRequest} makes it) and
 * those headers as they are. No web `Request` is built: constructing one (its `Headers` copy,
 * its `AbortSignal`) cost about a fifth of `auth()` in a Server Component.
 */
export function sessionSource(incoming: Headers, config: IntegrationConfig): SessionSource {
  const { core } = resolveIntegrationConfig(config);
  return { url: sessionUrl(incoming, core), headers: incoming };
}

/** The cookie store of `next/headers` as read here. */
interface CookieStore {
  set(name: string, value: string, options?: Record<string, unknown>): unknown;
  delete?: unknown;
}

/**
 * Whether Next.js lets this code set cookies. Next.js has no public way to ask; in a Server
 * Component its store is read-only, and answers one and the same throwing function for `set`
 * and `delete`, where a writable store (Server Action, Route Handler) has two methods.
 */
function writable(store: CookieStore): boolean {
  return typeof store.set === "function" && store.set !== store.delete;
}

/**
 * Sets `Set-Cookie` header values through `cookies()` when Next.js allows it (Server Actions,
 * Route Handlers), and does nothing in a Server Component, where the proxy renews the session
 * instead. Returns whether they were set.
 */
export async function setCookieHeaders(values: string[]): Promise<boolean> {
  if (values.length === 0) return true;
  const parsed = values.map(parseSetCookie).filter((c): c is Cookie => c !== undefined);
  return setCookies(parsed);
}

/** Sets cookies through `cookies()` when Next.js allows it; see {@link setCookieHeaders}. */
export async function setCookies(list: readonly Cookie[]): Promise<boolean> {
  if (list.length === 0) return true;
  let store: CookieStore;
  try {
    store = (await cookies()) as unknown as CookieStore;
  } catch {
    return false;
  }
  if (!writable(store)) return false;
  try {
    for (const cookie of list) store.set(cookie.name, cookie.value, { ...cookie.options });
    return true;
  } catch {
    // A context this check did not recognise as read-only: the cookie waits for the proxy.
    return false;
  }
}

/** A `Set-Cookie` header value as a name, a value and attributes. */
export function parseSetCookie(header: string): Cookie | undefined {
  const [pair = "", ...attributes] = header.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  let value = pair.slice(eq + 1).trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    // Kept as sent.
  }
  const options: Cookie["options"] = {};
  for (const attribute of attributes) {
    const at = attribute.indexOf("=");
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const val = at < 0 ? "" : attribute.slice(at + 1).trim();
    if (key === "path") options.path = val;
    else if (key === "domain") options.domain = val;
    else if (key === "max-age" && /^-?\d+$/.test(val)) options.maxAge = Number(val);
    else if (key === "expires" && !Number.isNaN(Date.parse(val))) options.expires = new Date(val);
    else if (key === "httponly") options.httpOnly = true;
    else if (key === "secure") options.secure = true;
    else if (key === "partitioned") options.partitioned = true;
    else if (key === "samesite") {
      const v = val.toLowerCase();
      if (v === "lax" || v === "strict" || v === "none") options.sameSite = v;
    }
  }
  return { name, value, options };
}
