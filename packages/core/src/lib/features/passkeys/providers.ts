/** The configuration's passkey providers: every provider of type `webauthn`. */
import type { Configured } from "../../capabilities.js";

/** The ids of the configuration's WebAuthn providers, in order. */
export const passkeyProviderIds = (config: Configured): string[] =>
  config.providers.filter((p) => p.type === "webauthn").map((p) => p.id);

/** Whether the feature is on: some provider is a WebAuthn one. */
export const passkeysOn = (config: Configured): boolean => passkeyProviderIds(config).length > 0;
