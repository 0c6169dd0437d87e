/**
 * Gatehouse for Next.js (App Router, 15 and 16), server side: `Gatehouse(config)` in `auth.ts`
 * returns the auth route's handlers, `auth` (the session in Server Components, Route Handlers
 * and Server Actions; the proxy or middleware; a `req.auth` wrapper), and `signIn` / `signOut`
 * for Server Actions; with the errors and types an app needs. The browser side is
 * `@gatehousejs/nextjs/client`.
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
export type {
  AuthorizationParams,
  ServerSignInOptions,
  ServerSignOutOptions,
} from "./server/actions.js";
export type {
  AuthorizedCallback,
  AuthorizedParams,
  GatehouseConfig,
  GatehouseConfigInput,
  ProtectOptions,
} from "./server/config.js";
export {
  type AuthFunction,
  Gatehouse,
  Gatehouse as default,
  type GatehouseResult,
  type RouteHandler,
  type SignInFunction,
  type SignOutFunction,
} from "./server/gatehouse.js";
export type { AuthHandler, RequestWithAuth } from "./server/guard.js";
