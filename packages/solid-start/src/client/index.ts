/**
 * Gatehouse for SolidStart, browser side: sign in (passkeys too), sign out, the session as
 * signals, a passkey for the signed-in user, the user's sessions (list, revoke), and password
 * accounts (sign up, reset, change the password or the address, set or
 * remove a password). Everything but the signals is `@gatehousejs/core/client`'s,
 * re-exported. Nothing here imports server code.
 * @module
 */
export {
  AuthRouteError,
  type ChangeEmailFields,
  type ChangePasswordFields,
  type ClientConfig,
  changeEmail,
  changePassword,
  configureClient,
  DEFAULT_BASE_PATH,
  type EmailChangeRequested,
  listSessions,
  type PasskeyAction,
  type PasskeyOptions,
  type PasswordChanged,
  type PasswordLinkOptions,
  type PasswordRemoved,
  type PasswordResetLink,
  type PasswordResetRequested,
  type PasswordResetResult,
  type PasswordRouteAnswer,
  type PasswordRouteOptions,
  type PasswordSet,
  type RemovePasswordFields,
  type ResetPasswordFields,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  readPasswordResetLink,
  removePassword,
  requestPasswordReset,
  resetPassword,
  revokeSessions,
  type Session,
  type SessionInfo,
  type SessionStatus,
  type SessionsOptions,
  type SetPasswordFields,
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignInResult,
  type SignOutOptions,
  type SignOutResult,
  type SignUpFields,
  type SignUpResult,
  setPassword,
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
