/**
 * Listing and removing passkeys (docs/passkeys.md): on when the configuration has a WebAuthn
 * provider (`Passkey()`, `WebAuthn()`), it adds GET /passkeys and POST /passkeys/remove for the
 * signed-in user. Removing one is a sensitive action: it needs a fresh sign-in where a feature
 * asks for one (two-factor users), and never takes the user's last way in. The routes' code
 * loads with their first request; off, they answer 404.
 */
import type { Feature } from "../../feature.js";
import { passkeysOn } from "./providers.js";
import list from "./route-list.js";
import remove from "./route-remove.js";

export const passkeysFeature = {
  name: "passkeys",
  routes: [list, remove],
  equip: (config) => (passkeysOn(config) ? {} : undefined),
} satisfies Feature;
