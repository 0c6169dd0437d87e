/**
 * Gatehouse in the browser, for any framework: sign in (passkeys too, with {@link withPasskeys}),
 * sign out, the session, the user's sessions (list, revoke), their passkeys (list, remove), and
 * password accounts (sign up, reset, change the password or the address, set or remove a
 * password), two-factor sign-in (enrol, backup codes, turn it off, answer the challenge, trusted
 * browsers), all over `fetch` against the auth route. Nothing here imports server code or
 * Node.js modules. Framework integrations (`@gatehousejs/solid-start/client`) re-export it and
 * add their reactive session.
 * @module
 */
export type { Session, SessionInfo, User } from "../types.js";
export { type ClientConfig, configureClient, DEFAULT_BASE_PATH } from "./base-path.js";
export { AuthRouteError } from "./errors.js";
export type {
  LoadWebAuthnBrowser,
  PasskeyAction,
  PasskeyOptions,
  RegisterPasskey,
  WebAuthnBrowser,
} from "./passkey.js";
export {
  listPasskeys,
  type PasskeyInfo,
  type PasskeyRemoved,
  type PasskeyRouteOptions,
  removePasskey,
} from "./passkeys.js";
export {
  type ChangeEmailFields,
  type ChangePasswordFields,
  changeEmail,
  changePassword,
  type EmailChangeRequested,
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
  readPasswordResetLink,
  removePassword,
  requestPasswordReset,
  resetPassword,
  type SetPasswordFields,
  type SignUpFields,
  type SignUpResult,
  setPassword,
  signUp,
} from "./password.js";
export {
  createSessionSource,
  type SessionSource,
  type SessionSourceOptions,
  type SessionStatus,
  statusOf,
} from "./session.js";
export {
  listSessions,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  revokeSessions,
  type SessionsOptions,
} from "./sessions.js";
export {
  type PasskeyClient,
  type SignIn,
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignOutOptions,
  type SignOutResult,
  signIn,
  signOut,
  withPasskeys,
} from "./sign-in.js";
export { onSessionChange, type SignInResult } from "./transport.js";
export {
  type BackupCodesIssued,
  type BackupCodesRegenerated,
  confirmTwoFactor,
  disableTwoFactor,
  enrollTwoFactor,
  type ForgetTrustedBrowserTarget,
  forgetTrustedBrowser,
  regenerateBackupCodes,
  type SecondFactor,
  type TrustedBrowser,
  type TrustedBrowserForgotten,
  type TwoFactorDisabled,
  type TwoFactorEnabled,
  type TwoFactorEnrolment,
  type TwoFactorRouteOptions,
  type TwoFactorStatus,
  type TwoFactorVerified,
  twoFactorStatus,
  type VerifyTwoFactorOptions,
  verifyTwoFactor,
} from "./two-factor.js";
