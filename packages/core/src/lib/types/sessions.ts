/**
 * Session management (docs/sessions.md): what a session records besides its token, the revocation
 * store that ends JWT sessions before they expire, and the security activity log. Contracts only:
 * the implementations live in lib/ (memory) and in the adapter packages (PostgreSQL, Redis).
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

/** A session as its user (and the server API) sees it. Never carries the session token. */
export interface SessionInfo {
  /** A public id: for a database session derived from its token one way, for a JWT its `sid`. */
  id: string;
  /** Whether this is the session of the request that asked (HTTP action only). */
  current: boolean;
  strategy: "jwt" | "database";
  /** ISO 8601 times, or null when unknown (a row from before session records). */
  createdAt: string | null;
  lastSeenAt: string | null;
  expires: string | null;
  provider: string | null;
  providerType: string | null;
  client: string | null;
  ip: string | null;
}

/** A JWT session the revocation store knows of, for listing. */
export interface RevocationSessionRecord extends SessionMetadata {
  userId: string;
  /** The JWT's `sid`. */
  sessionId: string;
  expires: Date;
}

/**
 * Ends JWT sessions before they expire. A JWT session check makes one call to {@link check}
 * (one round trip to the store); everything else happens on revocation and sign-in.
 *
 * Semantics: a session is revoked when its `sessionId` was revoked, or when the user's epoch
 * (set by {@link revokeUser}) is at or after the session's `issuedAt` and the session is not the
 * one the revocation excepted.
 */
export interface RevocationStore {
  /** True when the session is revoked. Must be one round trip. */
  check(params: { userId: string; sessionId: string; issuedAt: number }): Promise<boolean>;
  /** Revokes one session; the entry may be forgotten after `expires`. */
  revokeSession(params: { userId: string; sessionId: string; expires: Date }): Promise<void>;
  /**
   * Revokes every session of the user issued at or before `at` (seconds since the epoch), except
   * the session `except`; the epoch may be forgotten after `expires` (the latest any of them ends).
   */
  revokeUser(params: { userId: string; at: number; except?: string; expires: Date }): Promise<void>;
  /** Optional: remembers a JWT session (at sign-in, and when seen after `updateAge`), for listing. */
  recordSession?(record: RevocationSessionRecord): Promise<void>;
  /** Optional: the user's recorded sessions that are neither expired nor revoked. */
  listSessions?(userId: string): Promise<RevocationSessionRecord[]>;
}

/** Options of instant revocation for JWT sessions (`session.revocation`). */
export interface RevocationOptions {
  store: RevocationStore;
  /**
   * Milliseconds a check's answer may be reused in this process before asking the store again.
   * Default 0: every check asks. A revocation takes at most this long to reach this process.
   */
  maxStaleness?: number;
}

/**
 * The security activity log's event types, as the keys of an interface the features fill by
 * declaration merging: the security log declares the sign-in, sign-out, link and verification
 * events (features/security-log/types.ts), session management `sessionRevoked`
 * (features/sessions/types.ts).
 */
// biome-ignore lint/suspicious/noEmptyInterface: the features declare every member.
export interface SecurityEventTypes {}

/** What the security activity log records. */
export type SecurityEventType = keyof SecurityEventTypes;

/**
 * One entry of a user's security activity log. Never holds a token, secret, password, cookie or
 * full IP address.
 */
export interface SecurityEvent {
  id: string;
  userId: string;
  type: SecurityEventType;
  at: Date;
  /** The provider id involved (sign-in, link), if any. */
  provider?: string | null;
  /** That provider's type. */
  providerType?: string | null;
  /** On `signIn`: true when no session of this client description was seen before. */
  newClient?: boolean | null;
  client?: string | null;
  /** Truncated, and only with `session.recordIp`. */
  ip?: string | null;
  /** The public id of the session concerned, if any. */
  sessionId?: string | null;
  /** A short, stable reason code (`CredentialsSignin`, `revokedByUser`, `signOutEverywhere`…). */
  reason?: string | null;
}

/** Stores the security activity log. */
export interface SecurityEventStore {
  record(event: SecurityEvent): Promise<void>;
  /** The user's events, newest first, at most `limit`, only those before `before` when given. */
  list(userId: string, options: { limit: number; before?: Date }): Promise<SecurityEvent[]>;
  /** Deletes events older than `olderThan` (retention). */
  prune(olderThan: Date): Promise<void>;
}

/** Options of the security activity log (`securityLog`). */
export interface SecurityLogOptions {
  store: SecurityEventStore;
  /** Days an event is kept. Default 90. */
  retentionDays?: number;
}
