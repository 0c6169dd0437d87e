/**
 * Where the WebAuthn ceremonies find `@simplewebauthn/server`, an optional peer. Core never
 * imports it by name: the WebAuthn provider module (`providers/webauthn.ts`, which `Passkey()`
 * builds on) hands over its loader when a provider is created. An app without a WebAuthn provider
 * therefore neither loads the package nor carries it in a bundle, since a bundler follows every
 * `import()` it can see, installed or not.
 */
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
