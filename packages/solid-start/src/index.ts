/**
 * Gatehouse for SolidStart, server side: the auth route, the session of a request, protected
 * queries and a middleware for protected pages; the user's sessions and security activity log;
 * and the errors and types an app needs.
 * @module
 */

export {
  type AccessToken,
  type GetAccessTokenOptions,
  getAccessToken,
  type ListSecurityEventsOptions,
  listSecurityEvents,
  listSessions,
  type RevokeUserSessionsOptions,
  revokeSession,
  revokeUserSessions,
} from "@gatehousejs/core";
export { AuthError, CredentialsSignin, RefreshTokenError } from "@gatehousejs/core/errors";
export {
  type AuthMiddlewareEvent,
  type AuthMiddlewareHandler,
  type AuthMiddlewareOptions,
  DEFAULT_PREFIX,
  getSessionInfo,
  peerAddressOf,
  type SignedOutRedirect,
} from "@gatehousejs/core/integration";
export type {
  Account,
  AdapterUser,
  AuthConfig,
  Authenticator,
  CallbacksOptions,
  DefaultJWT,
  DefaultSession,
  DefaultUser,
  EventCallbacks,
  JWT,
  PagesOptions,
  Profile,
  Provider,
  RevocationStore,
  SecurityEvent,
  SecurityEventStore,
  SecurityEventType,
  Session,
  SessionInfo,
  SessionOptions,
  Theme,
  User,
} from "@gatehousejs/core/types";
export {
  SolidAuth,
  type SolidAuthConfig,
  type SolidAuthEvent,
  type SolidAuthHandler,
  type SolidAuthHandlers,
} from "./server/handler.js";
export { authMiddleware } from "./server/middleware.js";
export { getCsrfToken } from "./server/route-state.js";
export {
  getSession,
  type RequireSessionOptions,
  requireSession,
  type SessionWithUser,
} from "./server/session.js";
