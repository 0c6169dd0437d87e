/**
 * Credentials sign-in (docs/credentials.md): the form posts to the callback, which checks the
 * rate limits, runs `authorize`, and finishes with `completeSignIn`.
 */
import type { Feature } from "../../feature.js";
import type { InternalProvider } from "../../types/internal.js";
import type { CredentialsConfig } from "../../types/providers.js";

export const credentialsMethod = {
  name: "credentials",
  methods: [
    {
      types: ["credentials"],
      load: async () => {
        const { credentialsCallback } = await import("./callback.js");
        return {
          callback: (ctx, provider) =>
            credentialsCallback(ctx, provider as InternalProvider & CredentialsConfig),
        };
      },
    },
  ],
} satisfies Feature;
