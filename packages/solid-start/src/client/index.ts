/**
 * Gatehouse for SolidStart, browser side: sign in (passkeys too), sign out, the session as
 * signals, a passkey for the signed-in user, and the user's sessions (list, revoke). Everything
 * but the signals is `@gatehousejs/core/client`'s, re-exported. Nothing here imports server code.
 * @module
 */
export {
  AuthRouteError,
  type ClientConfig,
  configureClient,
  DEFAULT_BASE_PATH,
  listSessions,
  type PasskeyAction,
  type PasskeyOptions,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  revokeSessions,
  type Session,
  type SessionInfo,
  type SessionStatus,
  type SessionsOptions,
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignInResult,
  type SignOutOptions,
  type SignOutResult,
  signOut,
  type User,
} from "@gatehousejs/core/client";
export { registerPasskey, signIn } from "./passkey.js";
export {
  type CreateSessionOptions,
  createSession,
  type SessionResource,
} from "./session.js";
