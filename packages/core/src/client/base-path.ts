/**
 * The base path of the auth route, as the browser client sees it.
 */

/**
 * The default base path, `/api/auth`: where the framework integrations mount the auth route
 * (in SolidStart, the route file `src/routes/api/auth/[...solidauth].ts`).
 */
export const DEFAULT_BASE_PATH = "/api/auth";

let configured = DEFAULT_BASE_PATH;

/** Options of {@link configureClient}. */
export interface ClientConfig {
  /** Where the auth route is mounted (the server's `prefix` or `basePath`). Default `/api/auth`. */
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
 * Sets the base path that every later call of the client (`signIn`, `signOut`, the session and
 * sessions helpers) uses when it is not given one. Call it once, where the app starts, when the
 * auth route is not mounted on `/api/auth`. An absolute URL (`https://auth.example.com/api/auth`) is accepted too.
 *
 * @example
 * ```ts
 * import { configureClient } from "@gatehousejs/core/client";
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
