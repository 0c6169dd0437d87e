/**
 * The security activity log (docs/sessions.md): on with `securityLog`, it hears the sign-in
 * moments and records them; its code loads with the first event it records.
 */
import type { Feature } from "../../feature.js";
import { lazyListener } from "../../moments.js";

const securityLog = lazyListener(
  ["signIn", "signInRefused", "accountLinked", "emailVerified", "signingOut", "signedOut"],
  async () => (await import("./log.js")).securityLogListener,
);

export const securityLogFeature = {
  name: "security-log",
  equip: (config) => (config.source.securityLog ? { listeners: [securityLog] } : undefined),
} satisfies Feature;
