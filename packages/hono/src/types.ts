/**
 * The types a Hono app names: the configuration, and the variables the middleware put on the
 * context.
 */
import type { IntegrationConfig } from "@gatehousejs/core/integration";
import type { Session, User } from "@gatehousejs/core/types";

/**
 * The configuration of the Gatehouse middleware: core's `AuthConfig` without `basePath` (it
 * comes from `prefix`, default `/api/auth`) and without `raw`. Build it once, at module level,
 * and hand the same object to every middleware: its core configuration is built on the first
 * request and kept per object.
 */
export type HonoAuthConfig = IntegrationConfig;

/** A session that names its user: what {@link AuthVariables} holds after `requireAuth()`. */
export type SessionWithUser = Session & { user: User };

/**
 * The variables `gatehouse()` and `authSession()` put on the context: `c.get("session")` is the
 * session exactly as `GET <prefix>/session` would answer it, or `null`; `c.get("user")` is its
 * user, or `null`.
 */
export interface AuthVariables {
  session: Session | null;
  user: User | null;
}

/**
 * The Hono environment of an app that reads the session: `new Hono<AuthEnv>()`, or
 * `Hono<{ Variables: AuthVariables & MyVariables }>` next to the app's own variables.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import type { AuthEnv } from "@gatehousejs/hono";
 *
 * const app = new Hono<AuthEnv>();
 * app.get("/hello", (c) => c.text(`Hello, ${c.get("user")?.name ?? "guest"}`));
 * ```
 */
export interface AuthEnv {
  Variables: AuthVariables;
}

/** The variables after `requireAuth()`: a session with its user, never `null`. */
export interface SignedInVariables {
  session: SessionWithUser;
  user: User;
}

/** The Hono environment of a handler behind `requireAuth()`. */
export interface SignedInEnv {
  Variables: SignedInVariables;
}
