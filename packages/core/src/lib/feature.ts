/**
 * The feature seam (docs/architecture.md). The kernel (this folder outside `features/` and
 * `sign-in/`) never imports a feature: a feature is a value that says what it adds, and the
 * package's entry installs the built-in ones (../builtins.ts). What a feature adds to a
 * configuration is worked out once per resolved configuration, on first use:
 *
 * - `routes`: paths of the handler, declared like the kernel's (./routes/define.ts);
 * - `methods`: sign-in methods, by provider type (what POST /signin/<id> and /callback/<id> run);
 *   a provider may carry its own under {@link providerMethod}, which wins over the features';
 * - `listeners`: who hears the moments of a request (./moments.ts);
 * - `steps`: what a sign-in passes after the `signIn` callback and before its session;
 * - `sessionGuard`: the JWT session's revocation check and records (./session/guard.ts);
 * - `sessionClaims`: claims a new JWT session starts with;
 * - `signOutTarget`: where a sign-out goes on to (a provider's end-session page);
 * - `provesNothing`: accounts that are no way in of their own (a password chosen at a sign-up
 *   nobody confirmed), which the adoption checks of address proofs set aside;
 * - `needsFreshProof`: users whose sensitive actions need a recent sign-in (two-factor users).
 *
 * A feature's error types (`errors`) are registered when the features are installed, before any
 * request: the sign-in page knows their words, and answers know which may reach a client.
 *
 * A feature's code loads when a request first needs it: a part whose work is heavy wraps a
 * dynamic import (./moments.ts `lazyListener`).
 */
import type { ResolvedConfig } from "./config.js";
import type { Context } from "./context.js";
import { classifyErrorType, type ErrorType } from "./errors.js";
import { eventsListener } from "./events.js";
import { attachMethod, carried, providerMethod } from "./provider-method.js";
import type { RouteDeclaration } from "./routes/define.js";
import type { SessionGuard } from "./session/guard.js";
import type { ResponseInternal } from "./types/config.js";
import type { InternalProvider } from "./types/internal.js";
import type { Account, AdapterAccount, JWT } from "./types/models.js";
import type { Listener, SignInStep } from "./types/moments.js";

/** Claims a new JWT session starts with, before the `jwt` callback sees it. */
export type SessionClaims = (
  config: ResolvedConfig,
  sign: { account: Account | null },
) => Partial<JWT> | undefined;

/** Where a sign-out sends the browser after the session here ended (a provider's logout page). */
export interface SignOutTarget {
  endpoint: string;
  idToken: string | undefined;
  clientId: string;
}

/** What a feature adds to one resolved configuration. */
export interface FeatureParts {
  listeners?: readonly Listener[];
  steps?: readonly SignInStep[];
  sessionGuard?: SessionGuard;
  sessionClaims?: SessionClaims;
  /** Where POST /signout sends the browser next, if anywhere (one feature at most). */
  signOutTarget?: (ctx: Context) => Promise<SignOutTarget | undefined>;
  /**
   * Whether a stored account of this feature proves nothing about who holds the user: a way in
   * nobody has confirmed (a password chosen at a sign-up whose address is unproven). An address
   * proof that would adopt a user holding only such accounts (and its own) does; the feature
   * then voids them when it hears `emailVerified`.
   */
  provesNothing?: (account: AdapterAccount) => boolean;
  /**
   * Whether the user's sensitive actions (a new password or address, removing a way in, ending
   * every session) need a sign-in from the last few minutes, not only the action's own checks:
   * a feature that protects the user more (two-factor sign-in, when the user has it on) says so,
   * so that a stolen session cookie cannot undo that protection.
   */
  needsFreshProof?: (ctx: Context, userId: string) => Promise<boolean>;
}

/** What a sign-in method does for its providers (./sign-in/<method>/). */
export interface SignInMethod {
  /**
   * What it answers on routes a feature declares for its providers, by route name (GET
   * /webauthn-options/<provider>): the route's action asks the provider's method.
   */
  routes?: Readonly<
    Record<string, (ctx: Context, provider: InternalProvider) => Promise<ResponseInternal>>
  >;
  /**
   * POST /signin/<provider>: starts the sign-in (rate limits first). Without it the browser goes
   * back to the sign-in page, whose form posts straight to the callback.
   */
  start?: (ctx: Context, provider: InternalProvider) => Promise<ResponseInternal>;
  /** GET or POST /callback/<provider>: verifies what came back, then `completeSignIn`. */
  callback: (ctx: Context, provider: InternalProvider) => Promise<ResponseInternal>;
}

/**
 * A sign-in method as a feature (or a provider, see ./provider-method.ts) declares it: the
 * provider types it serves, loaded on first use.
 */
export interface MethodDeclaration {
  types: readonly string[];
  load: () => Promise<SignInMethod>;
  /**
   * HTML the built-in sign-in page adds after the provider's form (the passkey script; with
   * `signInOnly`, for a page that only signs in: no sign-up, no autofill). Not
   * behind `load`, since a page renders at once: a method that has some is carried by its
   * providers, so that only apps with such a provider bundle it.
   */
  signInPageHtml?: (provider: InternalProvider, options?: { signInOnly?: boolean }) => string;
  /**
   * The provider's whole block on the built-in sign-in page, for a provider type the page does
   * not render itself (the password provider's form). It shows with the credentials forms (the
   * same group, the same "or" separators); `undefined` shows nothing.
   */
  signInPageBlock?: (provider: InternalProvider, form: SignInPageForm) => string | undefined;
}

/** What the built-in sign-in page knows when it asks a method for its block. */
export interface SignInPageForm {
  csrfToken: string;
  callbackUrl?: string;
  /** The address to prefill (`?email=`). Untrusted: escape it. */
  email?: string;
  /** The kind of form the page's error is about (`credentials` after a wrong password). */
  invalid?: string;
}

export { providerMethod };

/** `provider`, carrying `method` (enumerable: `{ ...provider, id: "other" }` keeps it). */
export const withMethod: <P extends { type: string }>(provider: P, method: MethodDeclaration) => P =
  attachMethod;

/** The method a provider carries for its own type, if any. */
export const carriedMethod = (provider: object): MethodDeclaration | undefined =>
  carried(provider) as MethodDeclaration | undefined;

/**
 * An error type a feature raises (its class and its `ErrorTypes` member live in the feature's
 * folder): how answers treat it, and what the built-in sign-in page says for `?error=<type>`.
 */
export interface FeatureError {
  type: ErrorType;
  /** Its type may appear in a redirect's `?error=` (else the client reads `Configuration`). */
  clientSafe?: boolean;
  /** The client's mistake: logged at `warn`, never as the server's error. */
  mistake?: boolean;
  /** The sign-in page's words for it (a page that receives `?error=<type>`). */
  signInMessage?: string | ((code: string | undefined) => string);
}

export interface Feature {
  /** Its folder's name, for messages. */
  name: string;
  /** The error types it raises (classified by {@link installFeatures}). */
  errors?: readonly FeatureError[];
  /** Routes it adds to the handler (their names join `AuthAction`). */
  routes?: readonly RouteDeclaration[];
  /** The sign-in methods it brings (one per provider type at most, over all features). */
  methods?: readonly MethodDeclaration[];
  /** What it adds to a configuration; `undefined` when the configuration does not turn it on. */
  equip?(config: ResolvedConfig): FeatureParts | undefined;
}

/** Every part of a configuration, merged over the installed features. */
export interface Parts {
  listeners: readonly Listener[];
  steps: readonly SignInStep[];
  sessionGuard: SessionGuard | undefined;
  sessionClaims: readonly SessionClaims[];
  signOutTarget: FeatureParts["signOutTarget"];
  /** True for an account some feature says proves nothing (see {@link FeatureParts}). */
  provesNothing: (account: AdapterAccount) => boolean;
  /** True when some feature says the user's sensitive actions need a fresh sign-in. */
  needsFreshProof: (ctx: Context, userId: string) => Promise<boolean>;
}

let installed: readonly Feature[] = [];
let parts = new WeakMap<ResolvedConfig, Parts>();
let routeTable: Map<string, RouteDeclaration> | undefined;
let methodTable: Map<string, MethodDeclaration> | undefined;
const loadedMethods = new WeakMap<MethodDeclaration, Promise<SignInMethod>>();

/** Installs the features (the package entry does, with the built-in ones). */
export function installFeatures(features: readonly Feature[]): void {
  if (features === installed) return;
  installed = features;
  // The sign-in page reads the messages itself (./pages/sign-in-errors.ts), when it renders.
  for (const error of features.flatMap((f) => f.errors ?? [])) classifyErrorType(error.type, error);
  parts = new WeakMap();
  routeTable = undefined;
  methodTable = undefined;
}

export const installedFeatures = (): readonly Feature[] => installed;

/** The installed features' routes, by name. */
export function featureRoutes(): Map<string, RouteDeclaration> {
  routeTable ??= new Map(installed.flatMap((f) => f.routes ?? []).map((r) => [r.name, r]));
  return routeTable;
}

/**
 * The sign-in method of a provider: the one it carries, else the installed features' method for
 * its type; loaded by its first request (`undefined` when neither exists).
 */
export function methodFor(provider: { type: string }): Promise<SignInMethod> | undefined {
  methodTable ??= new Map(
    installed.flatMap((f) => f.methods ?? []).flatMap((m) => m.types.map((t) => [t, m] as const)),
  );
  const declared = carriedMethod(provider) ?? methodTable.get(provider.type);
  if (!declared) return undefined;
  let loaded = loadedMethods.get(declared);
  if (!loaded) {
    loaded = declared.load();
    loadedMethods.set(declared, loaded);
    // A failed import is tried again by the next request.
    loaded.catch(() => loadedMethods.delete(declared));
  }
  return loaded;
}

function build(config: ResolvedConfig): Parts {
  const listeners: Listener[] = [eventsListener];
  const steps: SignInStep[] = [];
  const sessionClaims: SessionClaims[] = [];
  let sessionGuard: SessionGuard | undefined;
  let signOutTarget: FeatureParts["signOutTarget"];
  const unproven: ((account: AdapterAccount) => boolean)[] = [];
  const fresh: ((ctx: Context, userId: string) => Promise<boolean>)[] = [];
  for (const feature of installed) {
    const own = feature.equip?.(config);
    if (!own) continue;
    listeners.push(...(own.listeners ?? []));
    steps.push(...(own.steps ?? []));
    if (own.sessionClaims) sessionClaims.push(own.sessionClaims);
    if (own.sessionGuard) {
      if (sessionGuard) throw new TypeError(`Two features guard sessions (${feature.name})`);
      sessionGuard = own.sessionGuard;
    }
    if (own.signOutTarget) {
      if (signOutTarget) throw new TypeError(`Two features redirect sign-outs (${feature.name})`);
      signOutTarget = own.signOutTarget;
    }
    if (own.provesNothing) unproven.push(own.provesNothing);
    if (own.needsFreshProof) fresh.push(own.needsFreshProof);
  }
  const provesNothing = (account: AdapterAccount) => unproven.some((test) => test(account));
  const needsFreshProof = async (ctx: Context, userId: string) => {
    for (const asks of fresh) if (await asks(ctx, userId)) return true;
    return false;
  };
  return {
    listeners,
    steps,
    sessionGuard,
    sessionClaims,
    signOutTarget,
    provesNothing,
    needsFreshProof,
  };
}

/** What the installed features add to `config`, worked out on first use. */
export function partsOf(config: ResolvedConfig): Parts {
  let found = parts.get(config);
  if (!found) {
    found = build(config);
    parts.set(config, found);
  }
  return found;
}

/** Adds parts to a configuration, over what the features gave it (for tests of the seam). */
export function attach(config: ResolvedConfig, extra: Partial<Parts>): void {
  parts.set(config, { ...partsOf(config), ...extra });
}
