/**
 * Passkey (WebAuthn) sign-in (docs/providers.md): GET /webauthn-options/<id> issues a ceremony's
 * options and challenge, and the callback verifies the browser's answer.
 */
import type { Feature } from "../../feature.js";
import type { WebAuthnInternalProvider } from "./ceremony.js";
import webauthnOptions from "./route-options.js";

export const webauthnMethod = {
  name: "webauthn",
  routes: [webauthnOptions],
  methods: [
    {
      types: ["webauthn"],
      load: async () => {
        const { webauthnCallback } = await import("./callback.js");
        return {
          callback: (ctx, provider) => webauthnCallback(ctx, provider as WebAuthnInternalProvider),
        };
      },
    },
  ],
} satisfies Feature;
