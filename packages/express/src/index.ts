/**
 * Gatehouse for Express: the auth routes as a router (`gatehouse(config)`), the session of a
 * request (`getSession(req, res)`), and a middleware for protected routes (`requireAuth()`).
 * Express 4 and 5 (tested on 4.22 and 5.3).
 * @module
 */

export { AuthError, CredentialsSignin } from "@gatehousejs/core/errors";
export { DEFAULT_PREFIX, peerAddressOf } from "@gatehousejs/core/integration";
export type { AuthConfig, Session, User } from "@gatehousejs/core/types";
export type { GatehouseConfig } from "./config.js";
export { getCsrfToken } from "./csrf.js";
export { gatehouse } from "./router.js";
export {
  getSession,
  type RequireAuthOptions,
  requireAuth,
  type SessionWithUser,
} from "./session.js";
