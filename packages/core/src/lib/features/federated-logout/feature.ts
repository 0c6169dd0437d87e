/**
 * Federated logout (docs/sessions.md): the OpenID provider's back-channel logout route, and the
 * record of the provider's session id with each session an OAuth sign-in issues.
 */
import type { Context } from "../../context.js";
import type { Feature } from "../../feature.js";
import { lazyListener } from "../../moments.js";
import backchannelLogout from "./route.js";

/** Heard only by OAuth sign-ins, so other sign-ins never load the OAuth code. */
const providerSid = lazyListener(
  ["sessionIssued"],
  async () => (await import("./provider-sid.js")).providerSidListener,
  (_name, moment) => {
    const type = (moment as { provider?: { type?: string } }).provider?.type;
    return type === "oauth" || type === "oidc";
  },
);

export const federatedLogoutFeature = {
  name: "federated-logout",
  routes: [backchannelLogout],
  equip: (config) => ({
    listeners: [providerSid],
    // Only a configuration with an OpenID provider can send a sign-out on to one.
    ...([...config.providerById.values()].some((p) => p.type === "oidc")
      ? {
          signOutTarget: async (ctx: Context) =>
            (await import("./sign-out.js")).federatedTarget(ctx),
        }
      : {}),
  }),
} satisfies Feature;
