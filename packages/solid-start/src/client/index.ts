/**
 * Gatehouse for SolidStart, browser side: sign in (passkeys too), sign out, the session as
 * signals, a passkey for the signed-in user, the user's sessions (list, revoke), and password
 * accounts (sign up, reset, change). Everything but the signals is `@gatehousejs/core/client`'s,
 * re-exported. Nothing here imports server code.
 * @module
 */
export {
  AuthRouteError,
  type ChangePasswordFields,
  type ClientConfig,
  changePassword,
  configureClient,
  DEFAULT_BASE_PATH,
  listSessions,
  type PasskeyAction,
  type PasskeyOptions,
  type PasswordChanged,
  type PasswordLinkOptions,
  type PasswordResetLink,
  type PasswordResetRequested,
  type PasswordResetResult,
  type PasswordRouteAnswer,
  type PasswordRouteOptions,
  type ResetPasswordFields,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  readPasswordResetLink,
  requestPasswordReset,
  resetPassword,
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
  type SignUpFields,
  type SignUpResult,
  signOut,
  signUp,
  type User,
} from "@gatehousejs/core/client";
export { registerPasskey, signIn } from "./passkey.js";
export {
  type CreateSessionOptions,
  createSession,
  type SessionResource,
} from "./session.js";
