/**
 * What the handler adds to a resolved configuration: the built-in listeners of the moments
 * (./moments.ts). The kernel below never imports this module; the handler (./auth.ts) does, so
 * the features' code loads only when a moment first needs it.
 */
import type { ResolvedConfig } from "./config.js";
import { attach, eventsListener, type Listener, lazyListener } from "./moments.js";

/**
 * The OpenID provider's session id is kept with the new session, for back-channel logout: heard
 * only by OAuth sign-ins, so other sign-ins never load the OAuth code.
 */
const providerSid = lazyListener(
  ["sessionIssued"],
  async () => (await import("./oauth/provider-sid.js")).providerSidListener,
  (_name, moment) => {
    const type = (moment as { provider?: { type?: string } }).provider?.type;
    return type === "oauth" || type === "oidc";
  },
);

const securityLog = lazyListener(
  ["signIn", "signInRefused", "accountLinked", "emailVerified"],
  async () => (await import("./security-log.js")).securityLogListener,
);

/** The listeners: the provider-sid record, the app's `events`, then the security log if on. */
function builtinListeners(config: ResolvedConfig): Listener[] {
  return config.securityLog
    ? [providerSid, eventsListener, securityLog]
    : [providerSid, eventsListener];
}

const equipped = new WeakSet<ResolvedConfig>();

/** Gives `config` its built-in listeners, once. */
export function equip(config: ResolvedConfig): ResolvedConfig {
  if (equipped.has(config)) return config;
  equipped.add(config);
  attach(config, { listeners: builtinListeners(config) });
  return config;
}
