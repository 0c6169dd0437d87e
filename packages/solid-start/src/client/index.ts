/**
 * Gatehouse for SolidStart, browser side: sign in (passkeys too), sign out, the session as
 * signals, a passkey for the signed-in user, and the user's sessions (list, revoke).
 * Nothing here imports server code.
 * @module
 */
export type { Session, SessionInfo, User } from "@gatehousejs/core/types";
export { type ClientConfig, configureClient, DEFAULT_BASE_PATH } from "./base-path.js";
export { AuthRouteError } from "./errors.js";
export {
  type PasskeyAction,
  type PasskeyOptions,
  registerPasskey,
} from "./passkey.js";
export {
  type CreateSessionOptions,
  createSession,
  type SessionResource,
  type SessionStatus,
} from "./session.js";
export {
  listSessions,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  revokeSessions,
  type SessionsOptions,
} from "./sessions.js";
export {
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignOutOptions,
  type SignOutResult,
  signIn,
  signOut,
} from "./sign-in.js";
export type { SignInResult } from "./transport.js";
