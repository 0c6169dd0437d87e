/**
 * The types of the moments of a request and of the sign-in steps (../moments.ts, ../sign-in.ts).
 */
import type { Context } from "../context.js";
import type { AuthError } from "../errors.js";
import type { StoreDeadline } from "../session/store-deadline.js";
import type { Cookie } from "./config.js";
import type { Account, AdapterAccount, AdapterUser, Profile, User } from "./models.js";

/** The provider a moment concerns, by id and type. */
export interface ProviderRef {
  id: string;
  type: string;
}

/** What every moment of a finished sign-in carries. */
export interface SignInMoment {
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  provider: ProviderRef;
  isNewUser: boolean;
  /**
   * What the sign-in proved, in the spirit of the `amr` values of RFC 8176 (`"pwd"`, `"hwk"`,
   * `"otp"`, …): the method's factor first, then each step's. Set on every finished sign-in.
   */
  factors?: string[];
}

/** A sign-in between the gate and its session. */
export interface PendingSignIn extends SignInMoment {
  sessionId?: string;
  /** Where the browser goes once signed in. */
  callbackUrl: string;
  /** The steps this sign-in has passed, by id. */
  passed: string[];
  /** What the sign-in has proved so far: the method's factor, then those of the steps passed. */
  factors: string[];
  /**
   * Names the challenge that holds (or would hold) this sign-in: 128 random bits, base64url.
   * A new one each time the sign-in is sealed. The kernel keeps no record of it: the step's
   * route claims it once in its own store, and refuses it when already claimed.
   */
  challengeId: string;
  /** When that challenge was sealed, in milliseconds since the epoch. */
  issuedAt: number;
}

/**
 * A step every sign-in passes after the gate and before its session (features register them; ./sign-in.ts runs them).
 * `require` answers the URL of the step's page (absolute, or a path on this site) when this
 * sign-in must pass the step, and `undefined` when it need not.
 *
 * The kernel binds the waiting sign-in to this browser and lets it wait at most
 * `CHALLENGE_MAX_AGE`; it does not remember which challenges were answered. So the step's
 * route, once its check passed and before it calls `resumeSignIn`, must: claim
 * `pending.challengeId` in its own store (atomically, kept at least `CHALLENGE_MAX_AGE`), so a
 * challenge is answered once; and refuse a challenge whose `issuedAt` is earlier than the time
 * the user last answered one, so a sign-in left waiting cannot finish after another did.
 * It passes its own factors to `resumeSignIn` (`["otp"]`, say).
 */
export interface SignInStep {
  id: string;
  require(ctx: Context, pending: PendingSignIn): string | undefined | Promise<string | undefined>;
  /**
   * Whether a further sign-in of the same user in the same browser, while this one waits on the
   * step, satisfies it: a passkey on the challenge page, say, proving `["hwk"]`. The kernel asks
   * only when the browser holds a waiting sign-in and the new one settled on the same user. The
   * step applies the rules of its own route here (a challenge claimed once, none older than the
   * user's last answered one) and records the proof as it would an answer; `true` resumes the
   * waiting sign-in with the new factors added, `false` lets the new sign-in go on by itself.
   */
  acceptProof?(ctx: Context, pending: PendingSignIn, factors: readonly string[]): Promise<boolean>;
}

/** The moments and what each carries. */
export interface Moments {
  /**
   * A sign-in's session was issued. `cookies` are the response's cookies so far; a listener may
   * read them (the new session's token) and add its own.
   */
  sessionIssued: SignInMoment & { cookies: Cookie[] };
  /** A sign-in finished: the session is issued and its cookies are final. */
  signIn: SignInMoment;
  /** A sign-in of a known user was refused with a Gatehouse error. */
  signInRefused: {
    /** The known user the sign-in was for, or null: then `claimed` may name one. */
    userId: string | null;
    /**
     * The fields of a refused credentials sign-in that may name an account (`email`, `username`;
     * never the password), from which a listener may look up whose account it named.
     */
    claimed?: Record<string, unknown>;
    provider: ProviderRef;
    error: AuthError;
  };
  /** A user was created by a sign-in. */
  userCreated: { user: AdapterUser };
  /** A stored user was changed by a sign-in. */
  userUpdated: { user: AdapterUser };
  /**
   * An account was linked to `user`; `isNewUser` when the user was created by the same sign-in
   * (its first account, not one added to an existing user).
   */
  accountLinked: {
    user: AdapterUser;
    account: AdapterAccount;
    profile: User | AdapterUser;
    isNewUser: boolean;
  };
  /** A user's email address was proven by a link or a code of `provider`. */
  emailVerified: { user: AdapterUser; provider: ProviderRef };
  /**
   * POST /signout is about to end the request's session: a listener that needs to know whose it
   * is reads it now. Store calls race `deadline`, which the sign-out shares.
   */
  signingOut: { deadline: StoreDeadline };
  /** The request's session has ended (its cookies are being deleted). */
  signedOut: { deadline: StoreDeadline };
  /**
   * What proves a user's identity changed (their password was reset, changed or removed):
   * whatever trusted the old proof (a browser trusted to skip a second factor) ends.
   */
  credentialsChanged: {
    userId: string;
    reason: "passwordReset" | "passwordChanged" | "passwordRemoved" | (string & {});
  };
}

export type MomentName = keyof Moments;

/** A listener hears some moments; each handler logs its own failures and never throws. */
export type Listener = {
  [K in MomentName]?: (ctx: Context, moment: Moments[K]) => void | Promise<void>;
};
