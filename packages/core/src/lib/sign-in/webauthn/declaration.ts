/**
 * The passkey (WebAuthn) sign-in method as the WebAuthn providers carry it (../../feature.ts,
 * `providerMethod`): the callback verifies the browser's answer, GET /webauthn-options/<id>
 * issues a ceremony's options and challenge, and the sign-in page gets the passkey script. Only
 * the provider modules import this, so an app without a WebAuthn provider bundles none of it.
 */
import type { MethodDeclaration } from "../../feature.js";
import type { WebAuthnInternalProvider } from "./ceremony.js";
import { renderWebAuthnScript } from "./page-script.js";

export const webauthnDeclaration: MethodDeclaration = {
  types: ["webauthn"],
  load: async () => {
    const [{ webauthnCallback }, { webauthnOptions }] = await Promise.all([
      import("./callback.js"),
      import("./options.js"),
    ]);
    return {
      callback: (ctx, provider) => webauthnCallback(ctx, provider as WebAuthnInternalProvider),
      routes: { "webauthn-options": (ctx) => webauthnOptions(ctx) },
    };
  },
  signInPageHtml: (provider, options) =>
    renderWebAuthnScript(provider as WebAuthnInternalProvider, options),
};
