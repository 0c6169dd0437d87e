/**
 * WebAuthn building blocks: the relying party, who a ceremony is for, which ceremony to run, and
 * `@simplewebauthn/server` (an optional peer), loaded on first use.
 */
import type { Context } from "../context.js";
import { InvalidEmailAddress, normalizeEmail } from "../email/normalize.js";
import { AuthError } from "../errors.js";
import { signedInUser } from "../session/index.js";
import type { InternalProvider } from "../types/internal.js";
import type { Adapter } from "../types/models.js";
import type { RelyingParty, WebAuthnConfig, WebAuthnUserInfo } from "../types/providers.js";

export type WebAuthnInternalProvider = InternalProvider & WebAuthnConfig;
export type Ceremony = "authenticate" | "register";
type SimpleWebAuthn = typeof import("@simplewebauthn/server");

export { DEFAULT_WEBAUTHN_TIMEOUT } from "./constants.js";

let library: Promise<SimpleWebAuthn> | undefined;

/** `@simplewebauthn/server`, imported once. A missing install is a configuration error. */
export function simpleWebAuthn(): Promise<SimpleWebAuthn> {
  library ??= import("@simplewebauthn/server").catch((cause: unknown) => {
    library = undefined;
    throw new AuthError("WebAuthn needs the @simplewebauthn/server package installed", { cause });
  });
  return library;
}

/** The relying party: the provider's settings, else this request's hostname, host and origin. */
export function relyingParty(ctx: Context, provider: WebAuthnConfig): Required<RelyingParty> {
  const url = ctx.req.url;
  return {
    id: provider.relayingParty?.id ?? url.hostname,
    name: provider.relayingParty?.name ?? url.host,
    origin: provider.relayingParty?.origin ?? url.origin,
  };
}

/** Base64url (what browsers and @simplewebauthn speak) to base64 (what adapters store). */
export const toBase64 = (base64url: string) =>
  Buffer.from(base64url, "base64url").toString("base64");
/** Base64 (stored) to base64url. */
export const toBase64url = (base64: string) => Buffer.from(base64, "base64").toString("base64url");

async function defaultUserInfo(
  _provider: WebAuthnConfig,
  request: { query: Record<string, string>; body?: Record<string, unknown> },
  adapter: Adapter,
): Promise<WebAuthnUserInfo | null> {
  const raw = request.query.email ?? request.body?.email;
  if (typeof raw !== "string" || raw === "") return null;
  let email: string;
  try {
    email = normalizeEmail(raw);
  } catch (error) {
    if (error instanceof InvalidEmailAddress) return null;
    throw error;
  }
  const user = await adapter.getUserByEmail?.(email);
  return user ? { user, exists: true } : { user: { email }, exists: false };
}

/** Who the ceremony is for: the signed-in user, else what `getUserInfo` says. */
export async function ceremonyUser(
  ctx: Context,
  provider: WebAuthnConfig,
): Promise<{ loggedIn: boolean; info: WebAuthnUserInfo | null }> {
  const current = await signedInUser(ctx);
  if (current) return { loggedIn: true, info: { user: current, exists: true } };
  const getUserInfo = provider.getUserInfo ?? defaultUserInfo;
  const info = await getUserInfo(
    provider,
    { query: ctx.req.query, body: ctx.req.body },
    ctx.config.adapter as Adapter,
  );
  return { loggedIn: false, info };
}

/**
 * Which ceremony to run. `authenticate` always may; `register` only for a signed-in user adding
 * a passkey, or for someone new. Without an explicit action: a known or unknown visitor
 * authenticates, a new one registers; a signed-in user must say which.
 */
export function decideCeremony(
  requested: Ceremony | undefined,
  loggedIn: boolean,
  info: WebAuthnUserInfo | null,
): Ceremony | undefined {
  if (requested === "authenticate") return "authenticate";
  if (requested === "register") return info && loggedIn === info.exists ? "register" : undefined;
  if (loggedIn) return undefined;
  if (!info || info.exists) return "authenticate";
  return "register";
}
