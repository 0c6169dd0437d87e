/**
 * What the signed-in user's account routes share (change the address, set or remove a password):
 * who is signed in, the answer to a browser that is not, and the check of the current password
 * under the sign-in rate limits of the account (as ./change.ts checks it).
 */
import type { Context } from "../../context.js";
import { verifyPassword } from "../../crypto/password.js";
import { CallbackRouteError } from "../../errors.js";
import { jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import { identifySession, type SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import type { CredentialsConfig } from "../../types/providers.js";
import { checkCredentialsAttempt } from "../rate-limit/index.js";
import type { PasswordConfig } from "./options.js";
import { routeUrl } from "./reset-request.js";
import { passwordAccount, type StoredPassword, storeOf } from "./store.js";

/** The fields as the rate limits read them: the account is the `email`, as at sign-in. */
const FIELDS = { email: { type: "email" }, password: { type: "password" } };

/** The signed-in user and their session, or null. */
export async function signedIn(
  ctx: Context,
): Promise<{ ref: SessionRef; user: AdapterUser } | null> {
  const ref = await identifySession(ctx);
  if (!ref) return null;
  const user = await storeOf(ctx).getUser(ref.userId);
  return user ? { ref, user } : null;
}

/** Not signed in: a JSON 401, or the sign-in page, which comes back to `route`. */
export function signInFirst(
  ctx: Context,
  provider: PasswordConfig,
  route: string,
  json: boolean,
): ResponseInternal {
  if (json) {
    return jsonResult({ error: "Unauthenticated", message: "Sign in first." }, 401, noStore);
  }
  const back = routeUrl(ctx, route, provider);
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  return redirectResult(pageUrl(ctx, page, { callbackUrl: back }));
}

/** The user's password, when it can sign in (a pending one voided by a proof cannot). */
export async function usablePassword(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
): Promise<StoredPassword | null> {
  const stored = (await passwordAccount(ctx, provider, user.id)).stored;
  return stored && !(stored.pending && user.emailVerified) ? stored : null;
}

/**
 * Whether `typed` is the user's current password, counted as a sign-in attempt of the account
 * (a wrong one adds to its backoff; a blocked account is refused before any verification).
 */
export async function currentPasswordIsRight(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  stored: StoredPassword,
  typed: unknown,
): Promise<boolean> {
  const current = typeof typed === "string" ? typed : "";
  const limited = { ...provider, credentials: FIELDS } as unknown as CredentialsConfig;
  const attempt = await checkCredentialsAttempt(ctx, limited, {
    email: user.email ?? "",
    password: current,
  });
  let right: boolean;
  try {
    right = await verifyPassword(current, stored.hash, provider.hash);
  } catch (cause) {
    await attempt.failed();
    throw new CallbackRouteError("The password could not be verified", { cause });
  }
  await (right ? attempt.succeeded() : attempt.failed());
  return right;
}
