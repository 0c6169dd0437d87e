/**
 * What a session records besides its token (docs/sessions.md). Session management's own
 * contracts (the revocation store, what a listed session looks like) are in
 * features/sessions/options.ts, the security log's in features/security-log/options.ts.
 */

/**
 * What Gatehouse records about a session besides its token and expiry. Every field is optional
 * and nullable: rows written before these fields existed stay readable.
 */
export interface SessionMetadata {
  /** When the session was created (the sign-in). */
  createdAt?: Date | null;
  /** When the session was last checked; written no more often than `session.updateAge`. */
  lastSeenAt?: Date | null;
  /** The id of the provider the user signed in with (`github`, `credentials`, `passkey`, …). */
  provider?: string | null;
  /** That provider's type (`oauth`, `oidc`, `email`, `credentials`, `webauthn`). */
  providerType?: string | null;
  /**
   * What the sign-in proved, as RFC 8176 `amr` values separated by spaces: `pwd otp` (a password
   * and an authenticator code), `hwk user` (a passkey with the user verified), `email`, `fed`.
   * Step-up (`requireRecentAuth`) reads it.
   */
  factors?: string | null;
  /** A short description of the client, from its User-Agent: `Chrome 131 on macOS`. */
  client?: string | null;
  /**
   * The client's address, truncated (IPv4 to its /24, IPv6 to its /48), and only when
   * `session.recordIp` is on.
   */
  ip?: string | null;
  /**
   * The OpenID provider's session id (the ID token's `sid`) at sign-in, so a back-channel logout
   * naming it can end this session (JWT sessions: in the revocation store's record of the session).
   */
  providerSid?: string | null;
  /**
   * `"RefreshTokenError"` after a provider refused the refresh token of one of the user's accounts
   * (see `getAccessToken`): the session's user must sign in with that provider again. A new
   * sign-in with it clears it; `null` clears it too and reads back absent.
   */
  error?: string | null;
}
