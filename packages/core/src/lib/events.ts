import type { ResolvedConfig } from "./config.js";
import { EventError } from "./errors.js";
import type { EventCallbacks } from "./types/config.js";
import type { Listener } from "./types/moments.js";

/** Runs an event handler, if configured. A handler that throws is logged, never fatal. */
export async function emit<K extends keyof EventCallbacks>(
  config: ResolvedConfig,
  event: K,
  message: Parameters<NonNullable<EventCallbacks[K]>>[0],
): Promise<void> {
  const handler = config.events[event] as ((m: typeof message) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (cause) {
    config.logger.error(new EventError(`The ${event} event handler threw`, { cause }));
  }
}

/**
 * The app's `events` callbacks as a listener of the sign-in moments. Credentials sign-ins tell
 * `signIn` neither the profile nor `isNewUser`, as Auth.js does; the other methods tell
 * `isNewUser`, and OAuth the profile.
 */
export const eventsListener: Listener = {
  signIn: (ctx, { user, account, profile, provider, isNewUser }) =>
    emit(ctx.config, "signIn", {
      user,
      account,
      ...(profile === undefined ? {} : { profile }),
      ...(provider.type === "credentials" ? {} : { isNewUser }),
    }),
  userCreated: (ctx, { user }) => emit(ctx.config, "createUser", { user }),
  userUpdated: (ctx, { user }) => emit(ctx.config, "updateUser", { user }),
  accountLinked: (ctx, { user, account, profile }) =>
    emit(ctx.config, "linkAccount", { user, account, profile }),
};
