/**
 * POST /callback/<password provider>: email and password. The credentials rate limits and
 * backoff apply first (features/rate-limit, as for a Credentials provider). An unknown address, a
 * wrong password, a voided one and (with `revealUnverified: false`) an unproven address all take
 * one password verification, the same adapter reads, and get the same answer. A hash made with
 * older parameters (or another library's) is replaced after a successful sign-in.
 */
import { requireCsrf } from "../../actions/csrf.js";
import { MethodNotAllowed } from "../../actions/method.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { hashPassword, needsRehash, verifyPassword } from "../../crypto/password.js";
import { normalizeEmail } from "../../email/normalize.js";
import { type AuthError, CallbackRouteError, CredentialsSignin } from "../../errors.js";
import { completeSignIn, signInRefused } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import type { CredentialsConfig } from "../../types/providers.js";
import { checkCredentialsAttempt } from "../rate-limit/index.js";
import { EmailNotVerified } from "./errors.js";
import type { PasswordConfig } from "./options.js";
import {
  PENDING,
  publicAccount,
  replaceHash,
  type StoredPassword,
  storedPassword,
  storeOf,
} from "./store.js";

/** The fields as the rate limits read them: the account is the `email`. */
const FIELDS = { email: { type: "email" }, password: { type: "password" } };

/** The user an address names and its password; both null for an address nobody holds. */
async function lookUp(
  ctx: Context,
  provider: PasswordConfig,
  email: string,
): Promise<{ user: AdapterUser | null; stored: StoredPassword | null }> {
  let address: string | null;
  try {
    address = normalizeEmail(email);
  } catch {
    address = null;
  }
  const user = address ? await storeOf(ctx).getUserByEmail(address) : null;
  // Read for an unknown address too (an id nobody has): the same two reads either way.
  const stored = await storedPassword(ctx, provider, user?.id ?? randomUUID());
  return { user, stored };
}

/** Stores a hash made with the current parameters, when the stored one was not. Never fails the sign-in. */
async function upgrade(
  ctx: Context,
  provider: PasswordConfig,
  userId: string,
  stored: StoredPassword,
  password: string,
): Promise<void> {
  try {
    if (!needsRehash(stored.hash, provider.hash)) return;
    const hash = await hashPassword(password, provider.hash);
    await replaceHash(ctx, provider, userId, stored.pending ? PENDING + hash : hash);
  } catch (error) {
    ctx.config.logger.error(error as Error);
  }
}

export async function passwordSignIn(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") throw new MethodNotAllowed("POST");
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  const body = ctx.req.body ?? {};
  const email = typeof body.email === "string" ? body.email : "";
  const password = typeof body.password === "string" ? body.password : "";
  const limited = { ...provider, credentials: FIELDS } as unknown as CredentialsConfig;
  // Over a limit, or inside this account's backoff from this client: refused before any check.
  const attempt = await checkCredentialsAttempt(ctx, limited, { email, password });
  const refuse = async (error: AuthError, userId: string | null = null): Promise<never> => {
    await attempt.failed();
    // Only the field that names the account travels: never the password.
    return signInRefused(ctx, userId, provider, error, userId ? undefined : { email });
  };

  const { user, stored } = await lookUp(ctx, provider, email);
  let right: boolean;
  try {
    // No stored password: the same work against no hash, and false.
    right = await verifyPassword(password, stored?.hash ?? null, provider.hash);
  } catch (cause) {
    return refuse(new CallbackRouteError("The password could not be verified", { cause }));
  }
  // A password chosen at sign-up for an address someone else has since proven is void.
  const usable = right && user !== null && !(stored?.pending && user.emailVerified);
  const wrong = () => new CredentialsSignin("The email address or password is wrong");
  if (!usable || !user || !stored) return refuse(wrong());
  if (!user.emailVerified && provider.requireEmailVerification) {
    if (provider.revealUnverified === false) return refuse(wrong());
    // The password was right: no failure to count, and only its holder learns this.
    await attempt.succeeded();
    return signInRefused(
      ctx,
      user.id,
      provider,
      new EmailNotVerified("The account's email address is not confirmed yet"),
    );
  }
  await attempt.succeeded();
  await upgrade(ctx, provider, user.id, stored, password);
  const account = publicAccount(provider, user.id);
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user, account },
    knownUserId: user.id,
    settle: async () => {
      // This browser now knows the password: its failures on the account are counted apart.
      const device = await attempt.signedIn();
      return { user, account, isNewUser: false, cookies: device ? [device] : [] };
    },
  });
}
