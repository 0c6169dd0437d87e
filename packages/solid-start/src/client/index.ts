/**
 * Gatehouse for SolidStart, browser side: sign in, sign out, and the session as signals.
 * Nothing here imports server code.
 * @module
 */
export type { Session, User } from "@gatehouse/core/types";
export { type ClientConfig, configureClient, DEFAULT_BASE_PATH } from "./base-path.js";
export {
  type CreateSessionOptions,
  createSession,
  type SessionResource,
  type SessionStatus,
} from "./session.js";
export {
  type SignInAuthorizationParams,
  type SignInOptions,
  type SignInResult,
  type SignOutOptions,
  type SignOutResult,
  signIn,
  signOut,
} from "./sign-in.js";
