import type { Context } from "../../context.js";
import type { EmailInternalProvider } from "../../email/signin.js";
import { InvalidProvider } from "../../errors.js";
import type { OAuthInternalProvider } from "../../oauth/signin.js";
import type { ResponseInternal } from "../../types/config.js";
import type { WebAuthnInternalProvider } from "../../webauthn/ceremony.js";
import { credentialsCallback } from "./credentials.js";

/** GET or POST /callback/<provider>: finishes a sign-in, by provider type. */
export async function callback(ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.requireProvider();
  switch (provider.type) {
    case "credentials":
      return credentialsCallback(ctx, provider);
    case "email":
      // Loaded on first use: an app without email or OAuth providers never loads their code.
      return (await import("./email.js")).emailCallback(ctx, provider as EmailInternalProvider);
    case "oauth":
    case "oidc":
      return (await import("./oauth.js")).oauthCallback(ctx, provider as OAuthInternalProvider);
    case "webauthn":
      return (await import("./webauthn.js")).webauthnCallback(
        ctx,
        provider as WebAuthnInternalProvider,
      );
    default:
      throw new InvalidProvider("This provider type has no callback");
  }
}
