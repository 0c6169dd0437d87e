/**
 * The one way every sign-in method finishes: {@link completeSignIn}. A method proves who is there
 * (and, before that, applies its rate limits); from then on every method runs the same moments in
 * the same order:
 *
 * 1. the app's `signIn` callback (the gate), before anything is stored;
 * 2. the method settles what the sign-in creates or links (users, accounts, passkeys);
 * 3. pending steps: a configured {@link SignInStep} (a second factor, say) may hold the sign-in.
 *    Then no session is issued: the sign-in waits in a short-lived encrypted cookie, bound to
 *    this browser by a second cookie, while the browser goes to the step's page, and the step's
 *    route calls {@link resumeSignIn} once it is satisfied;
 * 4. the session is issued;
 * 5. listeners hear `sessionIssued`, then `signIn` (./moments.ts).
 */
import type { Context } from "./context.js";
import { clearChunked, expireCookie, readChunked, writeChunked } from "./cookies.js";
import { base64url } from "./crypto/encoding.js";
import { sha256Hex, timingSafeEqual } from "./crypto/hash.js";
import { AccessDenied, AuthError } from "./errors.js";
import { partsOf } from "./feature.js";
import { decode, encode } from "./jwt.js";
import { announce, type PendingSignIn, type ProviderRef, type SignInMoment } from "./moments.js";
import { pageUrl, redirectResult } from "./response.js";
import { issueSession } from "./session/index.js";
import type { CallbacksOptions, Cookie, ResponseInternal } from "./types/config.js";
import type { Account, AdapterUser, Profile, User } from "./types/models.js";

export type { PendingSignIn, SignInStep } from "./moments.js";

/** What the `signIn` callback is asked. */
export type GateParams = Parameters<NonNullable<CallbacksOptions["signIn"]>>[0];

/** Who signs in, once the method has stored what the sign-in creates or links. */
export interface Settled {
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  isNewUser: boolean;
  /** JWT strategy: the `sid` that proving an address spared (./session/address-proof.ts). */
  sessionId?: string;
  /** The method's own cookies, sent whether the sign-in finishes or waits on a step. */
  cookies?: Cookie[];
}

export interface SignInRequest {
  provider: ProviderRef;
  callbackUrl: string;
  /** What the `signIn` callback sees. */
  gate: GateParams;
  /** The stored user a refusal of the gate is announced for (`signInRefused`), if known. */
  knownUserId?: string | null;
  /** After the gate allowed it: store what the sign-in creates or links, and say who it is. */
  settle: () => Settled | Promise<Settled>;
  /**
   * What the method proved, when it knows more than its provider type says (see
   * {@link firstFactors}): a passkey whose authenticator verified the user, say, is
   * `["hwk", "user"]`. Replaces the provider type's default.
   */
  factors?: string[];
}

/** How long a sign-in may wait on its steps. */
export const CHALLENGE_MAX_AGE = 10 * 60;

/**
 * The factor each provider type proves on its own, as an RFC 8176 `amr` value where one fits.
 * A passkey is proof of a hardware-bound key ("hwk"); whether its authenticator also verified
 * the user ("user") is known only to the WebAuthn method, which passes its own `factors` then.
 */
const FACTOR_OF_TYPE = new Map<string, string>([
  ["credentials", "pwd"],
  ["password", "pwd"],
  // Not an RFC 8176 value: a link or code proves control of the mailbox.
  ["email", "email"],
  ["webauthn", "hwk"],
  // Not an RFC 8176 value: another party vouched for the user, by whatever means it chose.
  ["oauth", "fed"],
  ["oidc", "fed"],
]);

/** What a sign-in of a provider type has proved before any step: none for a type not listed. */
export function firstFactors(type: string): string[] {
  const factor = FACTOR_OF_TYPE.get(type);
  return factor ? [factor] : [];
}

/**
 * Announces a refused sign-in of a known user (when `userId` is given, or the credentials it
 * `claimed` may name one, and the error is Gatehouse's) and throws the error on:
 * `.catch((e) => signInRefused(ctx, userId, provider, e))`.
 */
export async function signInRefused(
  ctx: Context,
  userId: string | null | undefined,
  provider: ProviderRef,
  error: unknown,
  claimed?: Record<string, unknown>,
): Promise<never> {
  if ((userId || claimed) && error instanceof AuthError) {
    await announce(ctx, "signInRefused", {
      userId: userId || null,
      ...(claimed ? { claimed } : {}),
      provider,
      error,
    });
  }
  throw error;
}

/**
 * Runs the `signIn` callback. `true` lets the sign-in go on (returns undefined); a string is a
 * redirect (through the `redirect` callback); `false` or a throw is `AccessDenied`.
 */
export async function gateSignIn(
  ctx: Context,
  params: GateParams,
): Promise<ResponseInternal | undefined> {
  let verdict: boolean | string;
  try {
    verdict = await ctx.config.callbacks.signIn(params);
  } catch (error) {
    if (error instanceof AccessDenied) throw error;
    const message = error instanceof Error && !(error instanceof AuthError) ? error.message : "";
    throw new AccessDenied(message || "The signIn callback threw", { cause: error });
  }
  if (verdict === true) return undefined;
  if (typeof verdict === "string" && verdict !== "") {
    const url = await ctx.config.callbacks.redirect({ url: verdict, baseUrl: ctx.origin });
    return redirectResult(new URL(url, ctx.origin).href);
  }
  throw new AccessDenied("The signIn callback refused the sign-in");
}

/** Finishes a sign-in whose credential the method has verified: see the module comment. */
export async function completeSignIn(
  ctx: Context,
  request: SignInRequest,
): Promise<ResponseInternal> {
  const { provider, callbackUrl } = request;
  const gate = await gateSignIn(ctx, request.gate).catch((error) =>
    signInRefused(ctx, request.knownUserId, provider, error),
  );
  if (gate) return gate;
  const { cookies = [], ...settled } = await request.settle();
  const factors = request.factors ?? firstFactors(provider.type);
  const resumed = await resumeWaiting(ctx, settled.user, factors, cookies);
  if (resumed) return resumed;
  return proceed(ctx, { ...settled, provider, callbackUrl, passed: [], factors }, cookies);
}

/**
 * A sign-in that proves more for a user whose sign-in already waits in this browser (a passkey
 * used on the second-factor page): each waiting step that accepts the new proof is passed, and
 * the waiting sign-in goes on with both sets of factors, under its own provider and callback.
 * `undefined` when nothing waits here for this user, or no step took the proof.
 */
async function resumeWaiting(
  ctx: Context,
  user: User | AdapterUser,
  factors: string[],
  cookies: Cookie[],
): Promise<ResponseInternal | undefined> {
  const steps = partsOf(ctx.config).steps.filter((step) => step.acceptProof);
  if (steps.length === 0 || typeof user.id !== "string") return undefined;
  const pending = await pendingSignIn(ctx);
  if (!pending || (pending.user as { id?: unknown }).id !== user.id) return undefined;
  const passed = [...pending.passed];
  for (const step of steps) {
    if (passed.includes(step.id)) continue;
    if (await step.acceptProof?.(ctx, pending, factors)) passed.push(step.id);
  }
  if (passed.length === pending.passed.length) return undefined;
  abandonSignIn(ctx);
  const proved = [...new Set([...pending.factors, ...factors])];
  return proceed(ctx, { ...pending, passed, factors: proved }, cookies);
}

/** What the challenge cookie seals: the sign-in, and the hash of this browser's binding. */
interface Sealed {
  p?: unknown;
  b?: unknown;
}

/**
 * The sign-in waiting in this browser, when there is one (for a step's page and route): `null`
 * when the browser holds none, one that does not decrypt or has expired, or one without the
 * binding cookie it was sent with (a challenge cookie copied into another browser).
 *
 * Each call to the same challenge answers the same `challengeId` and `issuedAt`: the kernel
 * does not know whether the challenge was answered already, so before resuming, the step's
 * route claims `challengeId` once in its own store and refuses a challenge issued before the
 * user last answered one (see {@link SignInStep}).
 */
export async function pendingSignIn(ctx: Context): Promise<PendingSignIn | null> {
  const { name } = ctx.cookieOptions.signInChallenge;
  const sealed = readChunked(ctx.req.cookies, name);
  const binding = ctx.req.cookies[ctx.cookieOptions.signInBinding.name];
  if (!sealed || !binding) return null;
  let claims: Sealed | null;
  try {
    claims = await decode<Sealed>({ token: sealed, secret: ctx.config.secrets, salt: name });
  } catch {
    return null;
  }
  if (!claims || typeof claims.b !== "string" || !isPending(claims.p)) return null;
  if (!timingSafeEqual(await sha256Hex(binding), claims.b)) return null;
  return revive(claims.p);
}

/**
 * Drops the sign-in waiting in this browser: both challenge cookies are deleted at this response
 * (a step's route does so when the challenge ends unanswered: too many tries, or outdated).
 */
export function abandonSignIn(ctx: Context): void {
  const { name, options } = ctx.cookieOptions.signInChallenge;
  const binding = ctx.cookieOptions.signInBinding;
  ctx.setCookies.push(
    ...clearChunked(ctx.req.cookies, name, options),
    expireCookie(binding.name, binding.options),
  );
}

/**
 * Goes on with a sign-in once `stepId` is satisfied: the next step that applies, or the session.
 * The step's route calls this with what {@link pendingSignIn} gave it, and with what the step
 * proved (`["otp"]`, say), which joins the sign-in's `factors`. Both challenge cookies are
 * deleted; a further step that holds the sign-in seals a new challenge.
 */
export function resumeSignIn(
  ctx: Context,
  pending: PendingSignIn,
  stepId: string,
  factors: string[] = [],
): Promise<ResponseInternal> {
  abandonSignIn(ctx);
  const passed = pending.passed.includes(stepId) ? pending.passed : [...pending.passed, stepId];
  const proved = [...new Set([...pending.factors, ...factors])];
  return proceed(ctx, { ...pending, passed, factors: proved }, []);
}

/** A sign-in before it is sealed: the challenge's id and time are minted for each sealing. */
type Unsealed = Omit<PendingSignIn, "challengeId" | "issuedAt">;

async function proceed(
  ctx: Context,
  unsealed: Unsealed,
  extra: Cookie[],
): Promise<ResponseInternal> {
  let pending: PendingSignIn | undefined;
  for (const step of partsOf(ctx.config).steps) {
    if (unsealed.passed.includes(step.id)) continue;
    // The step sees the id and time of the challenge it would hold the sign-in on.
    pending ??= { ...unsealed, challengeId: randomId(16), issuedAt: Date.now() };
    const page = await step.require(ctx, pending);
    if (page === undefined) continue;
    const challenge = await sealChallenge(ctx, pending);
    return { ...redirectResult(new URL(page, ctx.origin).href), cookies: [...challenge, ...extra] };
  }
  const { user, account, profile, provider, isNewUser, sessionId, callbackUrl, factors } = unsealed;
  const moment: SignInMoment = { user, account, provider, isNewUser, factors };
  if (profile !== undefined) moment.profile = profile;
  const cookies = await issueSession(ctx, { ...moment, ...(sessionId ? { sessionId } : {}) });
  cookies.push(...extra);
  await announce(ctx, "sessionIssued", { ...moment, cookies });
  await announce(ctx, "signIn", moment);
  const newUser = ctx.config.pages.newUser;
  const location = isNewUser && newUser ? pageUrl(ctx, newUser, { callbackUrl }) : callbackUrl;
  return { ...redirectResult(location), cookies };
}

/** `bytes` random bytes, base64url. */
function randomId(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * The challenge cookie and its binding cookie. The binding is a fresh random value that only
 * this browser receives; the challenge seals its SHA-256, so the challenge alone proves nothing.
 */
async function sealChallenge(ctx: Context, pending: PendingSignIn): Promise<Cookie[]> {
  const { name, options } = ctx.cookieOptions.signInChallenge;
  const binding = ctx.cookieOptions.signInBinding;
  const bindingValue = randomId(32);
  const value = await encode<Sealed>({
    token: { p: pending, b: await sha256Hex(bindingValue) },
    secret: ctx.config.secrets,
    salt: name,
    maxAge: CHALLENGE_MAX_AGE,
  });
  return [
    ...writeChunked(ctx.req.cookies, name, value, { ...options, maxAge: CHALLENGE_MAX_AGE }),
    {
      name: binding.name,
      value: bindingValue,
      options: { ...binding.options, maxAge: CHALLENGE_MAX_AGE },
    },
  ];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

function isPending(value: unknown): value is PendingSignIn {
  if (!isRecord(value) || !isRecord(value.user) || !isRecord(value.provider)) return false;
  return (
    (value.account === null || isRecord(value.account)) &&
    typeof value.provider.id === "string" &&
    typeof value.provider.type === "string" &&
    typeof value.isNewUser === "boolean" &&
    typeof value.callbackUrl === "string" &&
    isStrings(value.passed) &&
    isStrings(value.factors) &&
    typeof value.challengeId === "string" &&
    Number.isSafeInteger(value.issuedAt)
  );
}

/** The dates JSON turned into strings, back into dates. */
function revive(pending: PendingSignIn): PendingSignIn {
  const verified = (pending.user as { emailVerified?: unknown }).emailVerified;
  if (typeof verified !== "string") return pending;
  return {
    ...pending,
    user: { ...pending.user, emailVerified: new Date(verified) } as AdapterUser,
  };
}
