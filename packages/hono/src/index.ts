/**
 * Gatehouse for Hono: a middleware that mounts the auth routes and puts the session on the
 * context, a middleware that protects routes, and the CSRF token for a server-rendered form.
 * @module
 */

export { AuthError, CredentialsSignin } from "@gatehousejs/core/errors";
export { DEFAULT_PREFIX, peerAddressOf } from "@gatehousejs/core/integration";
export type { Session, User } from "@gatehousejs/core/types";
export { gatehouse } from "./gatehouse.js";
export { type AuthHandlerOptions, authHandler } from "./handler.js";
export { type RequireAuthOptions, requireAuth } from "./protect.js";
export { getCsrfToken } from "./route-state.js";
export { authSession } from "./session.js";
export type {
  AuthEnv,
  AuthVariables,
  HonoAuthConfig,
  SessionWithUser,
  SignedInEnv,
  SignedInVariables,
} from "./types.js";
