/**
 * One-time values (OAuth state, PKCE verifier and nonce; the WebAuthn challenge), each kept in a short-lived
 * encrypted cookie bound to the provider that started the flow.
 */
import type { Context } from "./context.js";
import { expireCookie } from "./cookies.js";
import { InvalidCheck } from "./errors.js";
import { decode, encode } from "./jwt.js";
import type { Cookie, CookiesOptions } from "./types/config.js";

/** The checks, by the cookie that carries each. */
const cookieKey = {
  state: "state",
  pkce: "pkceCodeVerifier",
  nonce: "nonce",
  webauthn: "webauthnChallenge",
} as const satisfies Record<string, keyof CookiesOptions>;

export type Check = keyof typeof cookieKey;

/** Lifetime of a check cookie, in seconds. */
export const CHECK_MAX_AGE = 15 * 60;
const STATE_SALT = "encodedState";

/** The cookie that carries `value` for `check`, sealed and bound to `providerId`. */
export async function sealCheck(
  ctx: Context,
  check: Check,
  value: string,
  providerId: string,
  formPost: boolean,
): Promise<Cookie> {
  const { name, options } = ctx.cookieOptions[cookieKey[check]];
  const sealed = await encode({
    token: { value, provider: providerId },
    secret: ctx.config.secrets,
    salt: name,
    maxAge: CHECK_MAX_AGE,
  });
  const crossSite = formPost;
  return {
    name,
    value: sealed,
    options: {
      ...options,
      maxAge: CHECK_MAX_AGE,
      expires: new Date(Date.now() + CHECK_MAX_AGE * 1000),
      // A form_post callback is a cross-site POST: only SameSite=None cookies come along,
      // and that includes the PKCE verifier.
      ...(crossSite ? { sameSite: "none" as const, secure: true } : {}),
    },
  };
}

/**
 * The value of `check` for this callback, from its cookie, which is queued for deletion.
 * Throws `InvalidCheck` when the cookie is missing, undecryptable, expired or minted for
 * another provider.
 */
export async function useCheck(ctx: Context, check: Check, providerId: string): Promise<string> {
  const { name, options } = ctx.cookieOptions[cookieKey[check]];
  const sealed = ctx.req.cookies[name];
  if (!sealed) throw new InvalidCheck(`The ${check} cookie is missing`);
  ctx.setCookies.push(expireCookie(name, options));
  let payload: { value?: unknown; provider?: unknown } | null;
  try {
    payload = await decode({ token: sealed, secret: ctx.config.secrets, salt: name });
  } catch (cause) {
    throw new InvalidCheck(`The ${check} cookie could not be read`, { cause });
  }
  if (!payload || typeof payload.value !== "string") {
    throw new InvalidCheck(`The ${check} cookie holds no value`);
  }
  if (payload.provider !== providerId) {
    throw new InvalidCheck(`The ${check} cookie belongs to another provider`);
  }
  return payload.value;
}

/** A fresh `state` parameter: an encrypted random value, plus the origin when proxied. */
export async function createState(ctx: Context, origin?: string): Promise<string> {
  const random = crypto.randomUUID();
  return encode({
    token: origin ? { random, origin } : { random },
    secret: ctx.config.secrets,
    salt: STATE_SALT,
    maxAge: CHECK_MAX_AGE,
  });
}

/** The payload of a `state` parameter. Throws `InvalidCheck` when it cannot be read. */
export async function readState(ctx: Context, state: string): Promise<{ origin?: string }> {
  try {
    const payload = await decode<{ origin?: unknown }>({
      token: state,
      secret: ctx.config.secrets,
      salt: STATE_SALT,
    });
    return typeof payload?.origin === "string" ? { origin: payload.origin } : {};
  } catch (cause) {
    throw new InvalidCheck("The state parameter could not be read", { cause });
  }
}
