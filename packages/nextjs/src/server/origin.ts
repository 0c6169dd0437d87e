/**
 * The public origin of a request Next.js hands to a proxy or Route Handler. Next.js builds
 * `request.url` from the address its server listens on, not from the request's `Host`; core's
 * host rules (a pinned `url`, `trustHost`) and cookie names need the origin the browser used.
 */
import { createActionURL } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";

type Env = Record<string, string | undefined>;

/** The process environment, where the runtime has one. */
export function processEnv(): Env {
  const env = (globalThis as { process?: { env?: Env } }).process?.env;
  return env && typeof env === "object" ? env : {};
}

/**
 * The origin by core's rule for action URLs: `url`/`AUTH_URL` when set, else the `Host` header
 * (`X-Forwarded-Host` and `-Proto` only when the host is trusted), with the request's protocol.
 */
export function publicOrigin(request: Request, core: AuthConfig): string {
  const protocol = new URL(request.url).protocol;
  return createActionURL("session", protocol, request.headers, processEnv(), core).origin;
}

/** `request` at its public origin: the same path, query, method, headers and body. */
export async function atPublicOrigin(request: Request, core: AuthConfig): Promise<Request> {
  const asked = new URL(request.url);
  const url = new URL(`${asked.pathname}${asked.search}`, publicOrigin(request, core));
  if (url.href === asked.href) return request;
  const bodyless = request.method === "GET" || request.method === "HEAD";
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: bodyless ? undefined : await request.arrayBuffer(),
  });
}
