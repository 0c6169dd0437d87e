/**
 * The base path of the auth route, as the browser client sees it.
 */

/** The default base path: where `src/routes/api/auth/[...solidauth].ts` mounts the route. */
export const DEFAULT_BASE_PATH = "/api/auth";

let configured = DEFAULT_BASE_PATH;

/** Options of {@link configureClient}. */
export interface ClientConfig {
  /** The prefix of the auth route (the server's `prefix`). Default `/api/auth`. */
  basePath?: string;
}

function normalize(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, "");
  if (trimmed === "") throw new TypeError("basePath must name the auth route, such as /api/auth");
  return /^([a-z][a-z0-9+.-]*:)?\/\//i.test(trimmed) || trimmed.startsWith("/")
    ? trimmed
    : `/${trimmed}`;
}

/**
 * Sets the base path every later `signIn`, `signOut` and `createSession` call uses when it is
 * not given one. Call it once, where the app starts, when the server's `prefix` is not
 * `/api/auth`. An absolute URL (`https://auth.example.com/api/auth`) is accepted too.
 *
 * @example
 * ```ts
 * import { configureClient } from "@gatehousejs/solid-start/client";
 *
 * configureClient({ basePath: "/auth" });
 * ```
 */
export function configureClient(config: ClientConfig): void {
  configured = config.basePath === undefined ? DEFAULT_BASE_PATH : normalize(config.basePath);
}

/** The base path of a call: its own option, else the configured one. */
export function basePathOf(basePath: string | undefined): string {
  return basePath === undefined ? configured : normalize(basePath);
}
