/**
 * WebAuthn building blocks: the relying party, who a ceremony is for, which ceremony to run, and
 * `@simplewebauthn/server` (an optional peer), loaded on first use. The rules are in
 * docs/security.md ("Passkeys"): no address named by a request is ever looked up or stored.
 */
import type { Context } from "../context.js";
import { AuthError } from "../errors.js";
import type { InternalProvider } from "../types/internal.js";
import type { RelyingParty, WebAuthnConfig } from "../types/providers.js";

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

/**
 * What the sealed challenge cookie carries: the challenge, and for a registration whose account
 * the new passkey joins (`userId`: the signed-in user's id; `null`: a new passkey-only user).
 */
export interface ChallengeState {
  challenge: string;
  register?: { userId: string | null };
}

/**
 * Which ceremony to run. An explicit `authenticate` or `register` is honoured (a registration
 * signed in adds a passkey to that account; signed out it creates a passkey-only user). Without
 * one, a signed-out visitor authenticates and a signed-in user must say which.
 */
export function decideCeremony(
  requested: Ceremony | undefined,
  signedIn: boolean,
): Ceremony | undefined {
  if (requested) return requested;
  return signedIn ? undefined : "authenticate";
}
