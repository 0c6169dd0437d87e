/**
 * The one way every sign-in method finishes: {@link completeSignIn}. A method proves who is there
 * (and, before that, applies its rate limits); from then on every method runs the same moments in
 * the same order:
 *
 * 1. the app's `signIn` callback (the gate), before anything is stored;
 * 2. the method settles what the sign-in creates or links (users, accounts, passkeys);
 * 3. pending steps: a configured {@link SignInStep} (a second factor, say) may hold the sign-in.
 *    Then no session is issued: the sign-in waits in a short-lived encrypted cookie in this
 *    browser while the browser goes to the step's page, and the step's route calls
 *    {@link resumeSignIn} once it is satisfied;
 * 4. the session is issued;
 * 5. listeners hear `sessionIssued`, then `signIn` (./moments.ts).
 */
import type { Context } from "./context.js";
import { clearChunked, readChunked, writeChunked } from "./cookies.js";
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
}

/** How long a sign-in may wait on its steps. */
export const CHALLENGE_MAX_AGE = 10 * 60;

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
  return proceed(ctx, { ...settled, provider, callbackUrl, passed: [] }, cookies);
}

/**
 * The sign-in waiting in this browser, when there is one (for a step's page and route): `null`
 * when the browser holds none, or one that does not decrypt or has expired.
 */
export async function pendingSignIn(ctx: Context): Promise<PendingSignIn | null> {
  const { name } = ctx.cookieOptions.signInChallenge;
  const sealed = readChunked(ctx.req.cookies, name);
  if (!sealed) return null;
  let claims: { p?: unknown } | null;
  try {
    claims = await decode<{ p?: unknown }>({
      token: sealed,
      secret: ctx.config.secrets,
      salt: name,
    });
  } catch {
    return null;
  }
  return claims && isPending(claims.p) ? revive(claims.p) : null;
}

/**
 * Goes on with a sign-in once `stepId` is satisfied: the next step that applies, or the session.
 * The step's route calls this with what {@link pendingSignIn} gave it.
 */
export function resumeSignIn(
  ctx: Context,
  pending: PendingSignIn,
  stepId: string,
): Promise<ResponseInternal> {
  const { name, options } = ctx.cookieOptions.signInChallenge;
  ctx.setCookies.push(...clearChunked(ctx.req.cookies, name, options));
  const passed = pending.passed.includes(stepId) ? pending.passed : [...pending.passed, stepId];
  return proceed(ctx, { ...pending, passed }, []);
}

async function proceed(
  ctx: Context,
  pending: PendingSignIn,
  extra: Cookie[],
): Promise<ResponseInternal> {
  for (const step of partsOf(ctx.config).steps) {
    if (pending.passed.includes(step.id)) continue;
    const page = await step.require(ctx, pending);
    if (page === undefined) continue;
    const challenge = await sealChallenge(ctx, pending);
    return { ...redirectResult(new URL(page, ctx.origin).href), cookies: [...challenge, ...extra] };
  }
  const { user, account, profile, provider, isNewUser, sessionId, callbackUrl } = pending;
  const moment: SignInMoment = { user, account, provider, isNewUser };
  if (profile !== undefined) moment.profile = profile;
  const cookies = await issueSession(ctx, { ...moment, ...(sessionId ? { sessionId } : {}) });
  cookies.push(...extra);
  await announce(ctx, "sessionIssued", { ...moment, cookies });
  await announce(ctx, "signIn", moment);
  const newUser = ctx.config.pages.newUser;
  const location = isNewUser && newUser ? pageUrl(ctx, newUser, { callbackUrl }) : callbackUrl;
  return { ...redirectResult(location), cookies };
}

async function sealChallenge(ctx: Context, pending: PendingSignIn): Promise<Cookie[]> {
  const { name, options } = ctx.cookieOptions.signInChallenge;
  const value = await encode({
    token: { p: pending },
    secret: ctx.config.secrets,
    salt: name,
    maxAge: CHALLENGE_MAX_AGE,
  });
  return writeChunked(ctx.req.cookies, name, value, { ...options, maxAge: CHALLENGE_MAX_AGE });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isPending(value: unknown): value is PendingSignIn {
  if (!isRecord(value) || !isRecord(value.user) || !isRecord(value.provider)) return false;
  return (
    (value.account === null || isRecord(value.account)) &&
    typeof value.provider.id === "string" &&
    typeof value.provider.type === "string" &&
    typeof value.isNewUser === "boolean" &&
    typeof value.callbackUrl === "string" &&
    Array.isArray(value.passed) &&
    value.passed.every((id) => typeof id === "string")
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
