/**
 * Moments: what happened to a user during a request, announced once by the code that made it
 * happen and heard by listeners (the app's `events` callbacks, the security log, the provider-sid
 * record of federated logout). Code that signs someone in says "a session was issued"; it does
 * not know who is listening. Listeners run in the order the configuration lists them, one after
 * the other, and a listener's failure is its own: each logs and swallows its errors.
 */
import type { ResolvedConfig } from "./config.js";
import type { Context } from "./context.js";
import type { AuthError } from "./errors.js";
import { emit } from "./events.js";
import type { Cookie } from "./types/config.js";
import type { Account, AdapterAccount, AdapterUser, Profile, User } from "./types/models.js";

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
}

/** A sign-in between the gate and its session. */
export interface PendingSignIn extends SignInMoment {
  sessionId?: string;
  /** Where the browser goes once signed in. */
  callbackUrl: string;
  /** The steps this sign-in has passed, by id. */
  passed: string[];
}

/**
 * A step every sign-in passes after the gate and before its session (features register them; ./sign-in.ts runs them).
 * `require` answers the URL of the step's page (absolute, or a path on this site) when this
 * sign-in must pass the step, and `undefined` when it need not.
 */
export interface SignInStep {
  id: string;
  require(ctx: Context, pending: PendingSignIn): string | undefined | Promise<string | undefined>;
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
  signInRefused: { userId: string; provider: ProviderRef; error: AuthError };
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
}

export type MomentName = keyof Moments;

/** A listener hears some moments; each handler logs its own failures and never throws. */
export type Listener = {
  [K in MomentName]?: (ctx: Context, moment: Moments[K]) => void | Promise<void>;
};

/**
 * The app's `events` callbacks as a listener of the sign-in moments. Credentials sign-ins tell
 * `signIn` neither the profile nor `isNewUser`, as Auth.js does; the other methods tell
 * `isNewUser`, and OAuth the profile.
 */
export const eventsListener: Listener = {
  signIn: (ctx, { user, account, profile, provider, isNewUser }) =>
    emit(ctx.config, "signIn", {
      user,
      account,
      ...(profile === undefined ? {} : { profile }),
      ...(provider.type === "credentials" ? {} : { isNewUser }),
    }),
  userCreated: (ctx, { user }) => emit(ctx.config, "createUser", { user }),
  userUpdated: (ctx, { user }) => emit(ctx.config, "updateUser", { user }),
  accountLinked: (ctx, { user, account, profile }) =>
    emit(ctx.config, "linkAccount", { user, account, profile }),
};
/** What the handler attached to a resolved configuration
: listeners and sign-in steps. */
interface Attached {
  listeners: readonly Listener[];
  steps: readonly SignInStep[];
}

const attached = new WeakMap<ResolvedConfig, Attached>();
/** A configuration the handler has not equipped hears with the app's `events` alone. */
const nothing: Attached = { listeners: [eventsListener], steps: [] };

/** Attaches listeners and sign-in steps to a resolved configuration (./builtins.ts does). */
export function attach(config: ResolvedConfig, parts: Partial<Attached>): void {
  const current = attached.get(config) ?? nothing;
  attached.set(config, { ...current, ...parts });
}

/** The listeners of a configuration, in the order they hear moments. */
export const listenersOf = (config: ResolvedConfig): readonly Listener[] =>
  (attached.get(config) ?? nothing).listeners;

/** The steps a sign-in passes after the gate and before its session. */
export const signInStepsOf = (config: ResolvedConfig): readonly SignInStep[] =>
  (attached.get(config) ?? nothing).steps;

/** Tells every listener of the configuration about a moment, in order. */
export async function announce<K extends MomentName>(
  ctx: Context,
  name: K,
  moment: Moments[K],
): Promise<void> {
  for (const listener of listenersOf(ctx.config)) {
    const hear = listener[name];
    if (hear) await hear(ctx, moment);
  }
}

/**
 * A listener whose code loads when it first hears a moment it cares about, so a feature that is
 * on costs nothing at import. `hears` says which moments load it.
 */
export function lazyListener(
  names: readonly MomentName[],
  load: () => Promise<Listener>,
  hears: (name: MomentName, moment: Moments[MomentName]) => boolean = () => true,
): Listener {
  let loaded: Promise<Listener> | undefined;
  const out: Listener = {};
  for (const name of names) {
    (out as Record<MomentName, (ctx: Context, moment: Moments[MomentName]) => Promise<void>>)[
      name
    ] = async (ctx, moment) => {
      if (!hears(name, moment)) return;
      loaded ??= load();
      const hear = (await loaded)[name] as
        | ((ctx: Context, moment: Moments[MomentName]) => void | Promise<void>)
        | undefined;
      await hear?.(ctx, moment);
    };
  }
  return out;
}
