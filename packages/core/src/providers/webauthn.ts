/**
 * Passwordless sign-in with WebAuthn (experimental): security keys and platform authenticators.
 * Needs `experimental.enableWebAuthn`, an adapter with the authenticator methods, and the
 * optional peer `@simplewebauthn/server`.
 * @module
 */

import { withMethod } from "../lib/feature.js";
import { supplyPasskeyActions } from "../lib/features/passkeys/carried.js";
import { DEFAULT_WEBAUTHN_TIMEOUT } from "../lib/sign-in/webauthn/constants.js";
import { webauthnDeclaration } from "../lib/sign-in/webauthn/declaration.js";
import { supplySimpleWebAuthn } from "../lib/sign-in/webauthn/library.js";
import type { WebAuthnConfig } from "../lib/types/providers.js";

export type { RelyingParty, WebAuthnConfig, WebAuthnUserInfo } from "../lib/types/providers.js";
export { DEFAULT_WEBAUTHN_TIMEOUT };

/**
 * The only import of `@simplewebauthn/server` in the package. It lives here so that an app bundles
 * the library only when it configures a WebAuthn or passkey provider; it runs on the first
 * ceremony, not when this module loads.
 */
const loadSimpleWebAuthn = () => import("@simplewebauthn/server");

/** The code of listing and removing passkeys (GET /passkeys, POST /passkeys/remove). */
const loadPasskeyActions = () => import("../lib/features/passkeys/actions.js");

/** What {@link WebAuthn} takes: everything optional. */
export type WebAuthnOptions = Partial<Omit<WebAuthnConfig, "type">>;

/**
 * A WebAuthn provider. It carries its sign-in method, so that an app bundles the WebAuthn code
 * only with a WebAuthn provider; a `type: "webauthn"` object written by hand is a configuration
 * error (spread a factory's result to change it: `{ ...Passkey(), id: "key" }`). The browser
 * asks `GET <basePath>/webauthn-options/<id>` for the ceremony to run and posts the result
 * (`action`, `data`) to `<basePath>/callback/<id>`. Signed in,
 * `?action=register` adds a passkey to the account; signed out it creates a user without an
 * email address (refuse those in the `signIn` callback if the app needs one). See
 * docs/security.md, "Passkeys".
 *
 * @example
 * ```ts
 * const config = { experimental: { enableWebAuthn: true }, adapter, providers: [WebAuthn()] };
 * ```
 */
export default function WebAuthn(options: WebAuthnOptions = {}): WebAuthnConfig {
  supplySimpleWebAuthn(loadSimpleWebAuthn);
  supplyPasskeyActions(loadPasskeyActions);
  const provider: WebAuthnConfig = {
    id: "webauthn",
    name: "WebAuthn",
    // Passkey autofill needs a field to offer the passkeys in; see formFields.
    enableConditionalUI: false,
    timeout: DEFAULT_WEBAUTHN_TIMEOUT,
    // The sign-in page shows the passkey buttons and no input: a passkey names its user, so an
    // address typed here would be ignored. For passkey autofill (conditional UI), give a field
    // with `autocomplete: "username webauthn"` and set `enableConditionalUI: true`.
    formFields: {},
    ...options,
    type: "webauthn",
  };
  return withMethod(provider, webauthnDeclaration);
}
