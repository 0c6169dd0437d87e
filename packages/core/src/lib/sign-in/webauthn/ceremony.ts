/**
 * WebAuthn building blocks: the relying party, who a ceremony is for, which ceremony to run, and
 * `@simplewebauthn/server` (an optional peer), loaded on first use through the loader the
 * WebAuthn provider supplied (see library.ts). The rules are in docs/security.md ("Passkeys"):
 * no address named by a request is ever looked up or stored.
 */
import type { Context } from "../../context.js";
import {
  base64ToBase64url,
  base64urlToBase64,
  fromBase64,
  isCanonicalBase64url,
  base64 as toStandardBase64,
} from "../../crypto/encoding.js";
import { AuthError, WebAuthnVerificationError } from "../../errors.js";
import type { InternalProvider } from "../../types/internal.js";
import type { RelyingParty, WebAuthnConfig } from "../../types/providers.js";
import { notFromFactory, type SimpleWebAuthn, suppliedSimpleWebAuthn } from "./library.js";

export type WebAuthnInternalProvider = InternalProvider & WebAuthnConfig;
export type Ceremony = "authenticate" | "register";

export { DEFAULT_WEBAUTHN_TIMEOUT } from "./constants.js";

let library: Promise<SimpleWebAuthn> | undefined;

/**
 * `@simplewebauthn/server`, imported once. A missing install is a configuration error, and so is
 * a WebAuthn provider written by hand: only `WebAuthn()` and `Passkey()` supply the import.
 */
export function simpleWebAuthn(): Promise<SimpleWebAuthn> {
  const load = suppliedSimpleWebAuthn();
  if (!load) {
    return Promise.reject(notFromFactory());
  }
  library ??= load().catch((cause: unknown) => {
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

/**
 * A credential id in base64url (what browsers and @simplewebauthn speak) to base64 (what adapters
 * store). An id that is not canonical base64url names no stored passkey: a verification failure.
 */
export function toBase64(base64url: string): string {
  if (!isCanonicalBase64url(base64url)) {
    throw new WebAuthnVerificationError("The credential id is not base64url");
  }
  return base64urlToBase64(base64url);
}

/** A stored (base64) credential id to base64url. */
export const toBase64url = (base64: string): string => base64ToBase64url(base64);

/** A stored (base64) public key, as the bytes @simplewebauthn verifies with. */
export const publicKeyFromStore = (stored: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(fromBase64(stored));

/** A new credential's public key, as adapters store it (base64). */
export const publicKeyToStore = (bytes: Uint8Array): string => toStandardBase64(bytes);

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
