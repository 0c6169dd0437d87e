/**
 * Where the WebAuthn ceremonies find `@simplewebauthn/server`, an optional peer. Core never
 * imports it by name: the WebAuthn provider module (`providers/webauthn.ts`, which `Passkey()`
 * builds on) hands over its loader when a provider is created. An app without a WebAuthn provider
 * therefore neither loads the package nor carries it in a bundle, since a bundler follows every
 * `import()` it can see, installed or not.
 */
import { AuthError } from "../../errors.js";

export type SimpleWebAuthn = typeof import("@simplewebauthn/server");
export type SimpleWebAuthnLoader = () => Promise<SimpleWebAuthn>;

let supplied: SimpleWebAuthnLoader | undefined;

/** Called by the WebAuthn provider factory. Every copy of the factory supplies the same import. */
export function supplySimpleWebAuthn(load: SimpleWebAuthnLoader): void {
  supplied = load;
}

/** The loader a WebAuthn provider supplied, if one was created in this process. */
export function suppliedSimpleWebAuthn(): SimpleWebAuthnLoader | undefined {
  return supplied;
}

/**
 * The configuration error of a WebAuthn provider written by hand: it carries neither the method
 * nor the import, which only the factories supply.
 */
export function notFromFactory(): AuthError {
  return new AuthError(
    "WebAuthn needs the @simplewebauthn/server package, loaded by the WebAuthn() and " +
      "Passkey() providers (@gatehousejs/core/providers/webauthn, /passkey): create the " +
      "provider with one of them",
  );
}
