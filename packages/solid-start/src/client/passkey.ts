/**
 * The client's passkeys: core's `signIn` and `registerPasskey` with `@simplewebauthn/browser`
 * (a dependency of this package), imported on the first passkey ceremony only, so a page that
 * signs in with a password never downloads it.
 */
import { type RegisterPasskey, type SignIn, withPasskeys } from "@gatehousejs/core/client";

const passkeys = /* @__PURE__ */ withPasskeys(() => import("@simplewebauthn/browser"));

/**
 * Signs in with a provider.
 *
 * What is posted depends on the provider's type. Under core's default ids (`"credentials"`,
 * `"password"`, `"passkey"`, `"webauthn"`) the type is known without asking. For any other id
 * the client reads the type from `GET <basePath>/providers` (once per base path; a list that
 * could not be had is asked for again on the next call, and this call posts to `signin`).
 *
 * - No provider: navigates to the sign-in page of the auth route.
 * - A credentials or password provider (`Credentials({ id: "ldap" })` as well as
 *   `"credentials"`): posts the other options to `<basePath>/callback/<provider>`. A password
 *   account whose address is not proven yet answers `error: "EmailNotVerified"` to its right
 *   password.
 * - A WebAuthn provider (`"passkey"`, `"webauthn"`, or any id of that type): the browser's
 *   passkey prompt, with the options of `<basePath>/webauthn-options/<provider>`, then its answer
 *   posted to `<basePath>/callback/<provider>`. `{ action: "register" }` makes a new passkey
 *   instead (as `registerPasskey()` does). `@simplewebauthn/browser` is loaded for this call only.
 * - Any other provider (or one the provider list does not name): posts to
 *   `<basePath>/signin/<provider>` (an OAuth provider answers with its authorization URL, an
 *   email provider sends its link).
 *
 * With `redirect: false` the page stays and the promise resolves with the outcome; a wrong
 * password is `{ ok: false, error: "CredentialsSignin", code: "credentials" }`. Sessions made by
 * `createSession` refetch after a sign-in that did not navigate.
 *
 * @example
 * ```ts
 * import { signIn } from "@gatehousejs/solid-start/client";
 *
 * const result = await signIn("credentials", {
 *   username: "alice",
 *   password: "wonderland",
 *   redirect: false,
 * });
 * if (result.error === "CredentialsSignin") console.log("Wrong username or password");
 * ```
 */
export const signIn: SignIn = passkeys.signIn;

/**
 * Adds a passkey to the signed-in user's account, from any page of the app: the browser asks
 * the person to create one, and the auth route stores it on their account (a new session is
 * issued, as after any sign-in). Signed out, it creates a new account that has only this passkey
 * (no email address), as the built-in page's "Create a passkey" does.
 *
 * With `redirect: false` the page stays and the promise resolves with
 * `{ ok, error, code, status, url }`, as `signIn`'s does; by default the browser goes to
 * `redirectTo` (the current page). Rejects with the browser's error (`NotAllowedError`) when the
 * person cancels.
 *
 * @example
 * ```ts
 * import { registerPasskey } from "@gatehousejs/solid-start/client";
 *
 * const result = await registerPasskey({ redirect: false });
 * if (result.ok) console.log("Passkey added");
 * ```
 */
export const registerPasskey: RegisterPasskey = passkeys.registerPasskey;
