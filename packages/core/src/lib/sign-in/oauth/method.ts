/**
 * OAuth and OpenID Connect sign-in (docs/providers.md): POST /signin/<id> redirects to the
 * provider with state, PKCE and nonce checks, and the callback exchanges the code.
 */
import type { Feature } from "../../feature.js";
import type { OAuthInternalProvider } from "./start.js";

export const oauthMethod = {
  name: "oauth",
  methods: [
    {
      types: ["oauth", "oidc"],
      load: async () => {
        const [{ oauthSignIn }, { oauthCallback }, { limitClient }] = await Promise.all([
          import("./start.js"),
          import("./callback.js"),
          import("../../features/rate-limit/index.js"),
        ]);
        return {
          start: async (ctx, provider) => {
            await limitClient(ctx, "oauth");
            return oauthSignIn(ctx, provider as OAuthInternalProvider);
          },
          callback: (ctx, provider) => oauthCallback(ctx, provider as OAuthInternalProvider),
        };
      },
    },
  ],
} satisfies Feature;
