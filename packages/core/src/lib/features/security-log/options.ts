/**
 * The security activity log's options and store contract (`AuthConfig.securityLog`,
 * docs/sessions.md), added to the kernel's configuration by declaration merging. Types only; the
 * memory store is ./memory.ts.
 */

declare module "../../types/config.js" {
  interface AuthConfig {
    /** The security activity log: sign-ins, failures, sign-outs, revocations, links. Off by default. */
    securityLog?: SecurityLogOptions;
  }
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
