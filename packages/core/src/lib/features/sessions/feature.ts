/**
 * Session listing and revocation (docs/sessions.md): the `sessions` and `sessions/revoke` routes,
 * and, under the JWT strategy with `session.revocation`, the guard every session check asks.
 */
import type { Feature } from "../../feature.js";
import type { SessionGuard } from "../../session/guard.js";
import type { RevocationOptions } from "./options.js";
import sessions from "./route-list.js";
import sessionsRevoke from "./route-revoke.js";

type Revocation = typeof import("./revocation.js");
let revocation: Revocation | undefined;
let loading: Promise<Revocation> | undefined;

/** The revocation code, imported by the first session check that needs it. */
function load(): Promise<Revocation> {
  loading ??= import("./revocation.js").then((module) => {
    revocation = module;
    return module;
  });
  return loading;
}

/** The guard, loading its code on first use and calling it directly after that. */
function lazyGuard(options: RevocationOptions): SessionGuard {
  let guard: SessionGuard | undefined;
  const ready = async () => {
    guard ??= (revocation ?? (await load())).revocationGuard(options);
    return guard;
  };
  return {
    isRevoked: async (token) => (guard ?? (await ready())).isRevoked(token),
    sessionStart: async (userId, sessionId, now) =>
      (guard ?? (await ready())).sessionStart?.(userId, sessionId, now) ?? now,
    issued: async (ctx, token, expires, origin) =>
      (guard ?? (await ready())).issued(ctx, token, expires, origin),
    signedOut: async (ctx, token, deadline) =>
      (guard ?? (await ready())).signedOut(ctx, token, deadline),
  };
}

export const sessionsFeature = {
  name: "sessions",
  routes: [sessions, sessionsRevoke],
  equip(config) {
    const options = config.session.revocation;
    if (config.session.strategy !== "jwt" || !options) return undefined;
    return { sessionGuard: lazyGuard(options) };
  },
} satisfies Feature;
