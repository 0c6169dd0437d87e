/**
 * What the session code asks of a feature that can end JWT sessions before they expire (session
 * listing and revocation, docs/sessions.md). Without one, a JWT session check is one decrypt and
 * makes no call at all; with one, it asks the guard once, after the decrypt.
 */
import type { Context } from "../context.js";
import type { JWT } from "../types/models.js";
import type { StoreDeadline } from "./store-deadline.js";

/** Where a new session came from, for its record. */
export interface SessionOrigin {
  provider: string | null;
  providerType: string | null;
}

export interface SessionGuard {
  /** Whether the token's session was ended. Throws when that cannot be known (checks fail closed). */
  isRevoked(token: JWT): Promise<boolean>;
  /**
   * The sign-in time (`auth_time`, seconds) of a session being issued now to `userId` with
   * `sessionId`: `now`, unless a revocation of every session of the user fell in this same
   * second, which a session starting at `now` would read as having come after it; then the next
   * second, since this session is issued after that revocation.
   */
  sessionStart?(userId: string, sessionId: string, now: number): Promise<number>;
  /** A token was issued or re-issued with this expiry (`origin` at sign-in only). */
  issued(ctx: Context, token: JWT, expires: Date, origin?: SessionOrigin): Promise<void>;
  /**
   * Sign-out: ends the token's own session so a copy of the cookie stops working too, retried
   * until `deadline` (then `SessionStoreUnavailable`).
   */
  signedOut(ctx: Context, token: JWT, deadline: StoreDeadline): Promise<void>;
}
