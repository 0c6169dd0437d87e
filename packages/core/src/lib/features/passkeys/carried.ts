/**
 * The routes' code comes with the WebAuthn providers: `WebAuthn()` and `Passkey()` supply its
 * loader when they are created, as they supply `@simplewebauthn/server`'s. The feature is on only
 * with such a provider, so the loader is there whenever a route runs; an app without one (a
 * Credentials-only Worker, say) bundles the two route declarations and none of their code.
 */
import { AuthError } from "../../errors.js";

type PasskeyActions = typeof import("./actions.js");

let supplied: (() => Promise<PasskeyActions>) | undefined;

/** Called by the WebAuthn provider factories. Every copy supplies the same import. */
export function supplyPasskeyActions(load: () => Promise<PasskeyActions>): void {
  supplied = load;
}

/** The routes' code, from the loader a WebAuthn provider supplied. */
export function passkeyActions(): Promise<PasskeyActions> {
  if (!supplied) {
    return Promise.reject(
      new AuthError(
        "Listing and removing passkeys needs a provider made by WebAuthn() or Passkey() (@gatehousejs/core/providers/webauthn, /passkey)",
      ),
    );
  }
  return supplied();
}
