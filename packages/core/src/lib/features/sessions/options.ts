/**
 * Session management's options and store contract (docs/sessions.md): what a session looks like
 * to its user, and the revocation store that ends JWT sessions before they expire
 * (`session.revocation`, added to the kernel's session options by declaration merging). Types
 * only; the memory store is ./memory.ts, the Redis and PostgreSQL stores are in their packages.
 */
import type { SessionMetadata } from "../../types/sessions.js";

declare module "../../types/config.js" {
  interface SessionOptions {
    /**
     * Instant revocation of JWT sessions: a store consulted by every JWT session check. Without
     * it the JWT check makes no call at all.
     */
    revocation?: RevocationOptions;
  }
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
