/**
 * POST /signin/<email provider>: check the address, ask the `signIn` callback, store the hash of
 * a one-time token, mail the link, and send the user to the "check your email" page.
 */

import type { Context } from "../../context.js";
import { randomHex, randomUUID, sha256Hex } from "../../crypto/hash.js";
import { InvalidEmailAddress, normalizeEmail } from "../../email/normalize.js";
import { AuthError, EmailSignInError } from "../../errors.js";
import { redirectResult } from "../../response.js";
import { gateSignIn } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { InternalProvider } from "../../types/internal.js";
import type { Adapter, AdapterUser } from "../../types/models.js";
import type { EmailConfig } from "../../types/providers.js";
import { codeHash, codeShape, generateCode, sealBinding } from "./code.js";

export type EmailInternalProvider = InternalProvider & EmailConfig;

/** Default lifetime of a sign-in link: 24 hours, in seconds. */
export const DEFAULT_EMAIL_MAX_AGE = 24 * 60 * 60;

/** The secrets a link's token may be hashed with: the provider's own, else the config's. */
export function tokenSecrets(ctx: Context, provider: EmailConfig): string[] {
  return provider.secret ? [provider.secret] : ctx.config.secrets;
}

/** The hash stored for a token: lowercase hex SHA-256 of `token + secret`. */
export function hashToken(token: string, secret: string): Promise<string> {
  return sha256Hex(token + secret);
}

/** The normalised address, or an `EmailSignInError` that sends the user back to the form. */
export function identifierOf(provider: EmailConfig, input: unknown): string {
  try {
    if (typeof input !== "string") throw new InvalidEmailAddress("No email address was given");
    const normalize = provider.normalizeIdentifier ?? normalizeEmail;
    const identifier = normalize(input);
    if (typeof identifier !== "string" || identifier === "") {
      throw new InvalidEmailAddress("normalizeIdentifier returned no address");
    }
    return identifier;
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    const error = new EmailSignInError("The email address was refused", { cause });
    error.code = "invalid_email";
    throw error;
  }
}

export async function emailSignIn(
  ctx: Context,
  provider: EmailInternalProvider,
): Promise<ResponseInternal> {
  const adapter = ctx.config.adapter as Required<Adapter>;
  const callbackUrl = await ctx.callbackUrl();
  const identifier = identifierOf(provider, ctx.req.body?.email);
  await (await import("../../features/rate-limit/index.js")).limitEmail(ctx, identifier);
  const existing = await adapter.getUserByEmail(identifier);
  const user: AdapterUser = existing ?? {
    id: randomUUID(),
    email: identifier,
    emailVerified: null,
  };
  const account = {
    providerAccountId: identifier,
    userId: user.id,
    type: "email" as const,
    provider: provider.id,
  };
  const gate = await gateSignIn(ctx, { user, account, email: { verificationRequest: true } });
  if (gate) return gate;

  const shape = codeShape(provider);
  const token = (await provider.generateVerificationToken?.()) ?? randomHex(32);
  const maxAge = provider.maxAge ?? DEFAULT_EMAIL_MAX_AGE;
  const expires = new Date(Date.now() + maxAge * 1000);
  const url = new URL(provider.callbackUrl);
  url.searchParams.set("callbackUrl", callbackUrl);
  url.searchParams.set("token", token);
  url.searchParams.set("email", identifier);

  const secret = tokenSecrets(ctx, provider)[0]!;
  const stored = { identifier, token: await hashToken(token, secret), expires };
  await adapter.createVerificationToken(stored);
  let code: string | undefined;
  const rows = [stored.token];
  if (shape) {
    // The code works only in this browser: its hash is keyed by a nonce kept in a sealed cookie.
    code = generateCode(shape);
    const nonce = randomHex(16);
    const hash = await codeHash(secret, nonce, identifier, code);
    await adapter.createVerificationToken({ identifier, token: hash, expires });
    rows.push(hash);
    const binding = {
      nonce,
      identifier,
      provider: provider.id,
      codeHash: hash,
      linkHash: stored.token,
      expires: expires.valueOf(),
      callbackUrl,
    };
    ctx.setCookies.push(await sealBinding(ctx, binding, maxAge));
  }
  try {
    await provider.sendVerificationRequest({
      identifier,
      token,
      expires,
      url: url.href,
      provider,
      theme: ctx.config.theme,
      request: ctx.req.original,
      ...(code === undefined ? {} : { code }),
    });
  } catch (cause) {
    // A link (or code) nobody received must not stay redeemable.
    for (const row of rows) {
      await Promise.resolve(adapter.useVerificationToken({ identifier, token: row })).catch(
        (error) => ctx.config.logger.error(error as Error),
      );
    }
    const error = new EmailSignInError("The sign-in email could not be sent", { cause });
    error.code = "send_failed";
    throw error;
  }
  const target = new URL(`${ctx.authUrl}/verify-request`);
  target.searchParams.set("provider", provider.id);
  target.searchParams.set("type", "email");
  return redirectResult(target.href);
}
