/**
 * Provider tokens (docs/tokens.md): without an adapter, the provider's tokens of an OAuth sign-in
 * have nowhere else to live, so a new JWT session carries them in its own claim.
 */
import type { Feature } from "../../feature.js";
import { PROVIDER_TOKENS_CLAIM, providerTokensOf } from "./claim.js";

export const providerTokensFeature = {
  name: "provider-tokens",
  equip: (config) =>
    config.adapter
      ? undefined
      : {
          sessionClaims: (_config, { account }) => {
            const oauth = account && (account.type === "oauth" || account.type === "oidc");
            const tokens = oauth ? providerTokensOf(account) : null;
            return tokens ? { [PROVIDER_TOKENS_CLAIM]: tokens } : undefined;
          },
        },
} satisfies Feature;
