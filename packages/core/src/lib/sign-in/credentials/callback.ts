/**
 * POST /callback/<credentials provider>: checks the submitted fields with `authorize` and signs
 * the returned user in.
 */

import { requireCsrf } from "../../actions/csrf.js";
import { MethodNotAllowed } from "../../actions/method.js";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { AuthError, CallbackRouteError, CredentialsSignin } from "../../errors.js";
import { checkCredentialsAttempt } from "../../features/rate-limit/index.js";
import { completeSignIn, signInRefused } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { InternalProvider } from "../../types/internal.js";
import type { Account, AdapterUser, User } from "../../types/models.js";
import type { CredentialsConfig } from "../../types/providers.js";

/** Only the fields the provider declares reach `authorize`: never the CSRF token or callback URL. */
function declaredFields(provider: CredentialsConfig, body: Record<string, unknown> | undefined) {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(provider.credentials ?? {})) {
    if (body && Object.hasOwn(body, key)) out[key] = body[key];
  }
  return out;
}

/** The submitted fields that may name an account (what the security log looks a user up by). */
function namingFields(credentials: Record<string, unknown>): Record<string, unknown> {
  const { email, username } = credentials;
  return {
    ...(email === undefined ? {} : { email }),
    ...(username === undefined ? {} : { username }),
  };
}

async function authorize(
  ctx: Context,
  provider: CredentialsConfig,
  credentials: Record<string, unknown>,
): Promise<User> {
  let user: User | null;
  try {
    user = await provider.authorize(credentials, ctx.req.original);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new CallbackRouteError(`authorize of provider "${provider.id}" threw`, { cause: error });
  }
  if (!user || typeof user !== "object") {
    throw new CredentialsSignin(`authorize of provider "${provider.id}" returned no user`);
  }
  return user;
}

/**
 * With database sessions the session row points at a stored user, so `authorize` must return a
 * user that exists in the adapter (Gatehouse does not create users from credentials).
 */
async function storedUser(ctx: Context, id: string): Promise<AdapterUser> {
  const stored = await capabilitiesOf(ctx.config).getUser?.(id);
  if (!stored) {
    throw new CallbackRouteError(
      "With database sessions, authorize must return a user that exists in the adapter; no stored user has the returned id",
    );
  }
  return stored;
}

export async function credentialsCallback(
  ctx: Context,
  provider: InternalProvider & CredentialsConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") throw new MethodNotAllowed("POST");
  await requireCsrf(ctx);
  // A refused callbackUrl must stop the sign-in before anything happens.
  const callbackUrl = await ctx.callbackUrl();
  const credentials = declaredFields(provider, ctx.req.body);
  // Over a limit, or inside this account's backoff from this client: refused before authorize.
  const attempt = await checkCredentialsAttempt(ctx, provider, credentials);
  const returned = await authorize(ctx, provider, credentials).catch(async (error) => {
    // A refusal or a throw: either way one more failure (a throw must not be a free guess).
    await attempt.failed();
    // A wrong password names an account (the log may show its user the failure); a throw not.
    // Only the fields that name an account travel: never the password.
    const claimed = error instanceof CredentialsSignin ? namingFields(credentials) : undefined;
    return signInRefused(ctx, null, provider, error, claimed);
  });
  await attempt.succeeded();
  const id = returned.id === undefined || returned.id === null ? randomUUID() : String(returned.id);
  let user: User | AdapterUser = { ...returned, id };
  const account: Account = { providerAccountId: id, type: "credentials", provider: provider.id };
  if (ctx.config.session.strategy === "database") user = await storedUser(ctx, id);

  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user, account, credentials },
    knownUserId: user.id,
    settle: async () => {
      // This browser now knows the password: its failures on the account are counted apart.
      const device = await attempt.signedIn();
      return { user, account, isNewUser: false, cookies: device ? [device] : [] };
    },
  });
}
