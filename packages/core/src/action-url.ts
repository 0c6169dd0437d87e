/**
 * `createActionURL`: the absolute URL of an action, for integrations that call the handler.
 */

import type { AuthAction } from "./builtins.js";
import { normalizeBasePath } from "./lib/base-path.js";
import { type Env, trustHostFromEnv } from "./lib/env.js";
import { firstHeaderValue, parsePublicUrl } from "./lib/origin.js";
import type { LoggerInstance } from "./lib/types/config.js";

/**
 * The absolute URL of an action: from `config.url` or `AUTH_URL` when set, else from the host
 * and protocol of the request. The `X-Forwarded-Host` and `X-Forwarded-Proto` headers are read
 * only when the host is trusted (`config.trustHost`, else `AUTH_TRUST_HOST`), and only their first
 * value; a protocol other than `http`/`https` is ignored. `config.basePath` wins over the path of
 * `AUTH_URL`.
 *
 * @example
 * ```ts
 * import { createActionURL } from "@gatehousejs/core";
 *
 * const headers = new Headers({ host: "example.com" });
 * const url = createActionURL("signout", "https", headers, {}, { basePath: "/api/auth" });
 * // url.href === "https://example.com/api/auth/signout"
 * ```
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  envObject: Env,
  config: {
    basePath?: string;
    logger?: Partial<LoggerInstance>;
    trustHost?: boolean;
    url?: string | URL;
  },
): URL {
  const env = envObject ?? {};
  const configured = config.url ?? env.AUTH_URL ?? env.NEXTAUTH_URL;
  const pinned = configured === undefined ? undefined : parsePublicUrl(configured);
  let base: URL;
  if (pinned) {
    base = new URL(pinned.href);
    if (config.basePath && config.basePath !== "/" && base.pathname !== "/") {
      if (base.pathname.replace(/\/+$/, "") !== normalizeBasePath(config.basePath)) {
        (config.logger?.warn ?? console.warn)("env-url-basepath-mismatch");
      }
      base.pathname = "/";
    }
  } else {
    const trust = config.trustHost ?? trustHostFromEnv(env);
    const forwardedHost = trust ? firstHeaderValue(headers.get("x-forwarded-host")) : undefined;
    const forwardedProto = trust ? firstHeaderValue(headers.get("x-forwarded-proto")) : undefined;
    const host = forwardedHost ?? firstHeaderValue(headers.get("host")) ?? "localhost";
    const scheme = (value: string | undefined) => {
      const v = value?.toLowerCase().replace(/:$/, "");
      return v === "http" || v === "https" ? v : undefined;
    };
    const proto = scheme(forwardedProto) ?? scheme(protocol) ?? "https";
    const candidate = `${proto}://${host}`;
    // A host header that is not a host (a path, credentials, spaces) falls back to localhost.
    base =
      /^[\w.:[\]-]+$/.test(host) && URL.canParse(candidate)
        ? new URL(candidate)
        : new URL(`${proto}://localhost`);
  }
  const root = base.href.replace(/\/+$/, "");
  const path = config.basePath ? normalizeBasePath(config.basePath) : "";
  return new URL(`${root}${path}/${action}`);
}
