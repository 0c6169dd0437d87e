/**
 * Moments: what happened to a user during a request, announced once by the code that made it
 * happen and heard by listeners (the app's `events` callbacks, the security log, the provider-sid
 * record of federated logout). Code that signs someone in says "a session was issued"; it does
 * not know who is listening. Listeners run in the order the configuration lists them (the app's
 * `events` first, then the features' in the order they are installed), one after the other, and
 * a listener's failure is its own: each logs and swallows its errors.
 */
import type { Context } from "./context.js";
import { partsOf } from "./feature.js";
import type { Listener, MomentName, Moments } from "./types/moments.js";

export type {
  Listener,
  MomentName,
  Moments,
  PendingSignIn,
  ProviderRef,
  SignInMoment,
  SignInStep,
} from "./types/moments.js";

/** Tells every listener of the configuration about a moment, in order. */
export async function announce<K extends MomentName>(
  ctx: Context,
  name: K,
  moment: Moments[K],
): Promise<void> {
  for (const listener of partsOf(ctx.config).listeners) {
    const hear = listener[name];
    if (hear) await hear(ctx, moment);
  }
}

/**
 * A listener whose code loads when it first hears a moment it cares about, so a feature that is
 * on costs nothing at import. `hears` says which moments load it.
 */
export function lazyListener(
  names: readonly MomentName[],
  load: () => Promise<Listener>,
  hears: (name: MomentName, moment: Moments[MomentName]) => boolean = () => true,
): Listener {
  let loaded: Promise<Listener> | undefined;
  const out: Listener = {};
  for (const name of names) {
    (out as Record<MomentName, (ctx: Context, moment: Moments[MomentName]) => Promise<void>>)[
      name
    ] = async (ctx, moment) => {
      if (!hears(name, moment)) return;
      loaded ??= load();
      const hear = (await loaded)[name] as
        | ((ctx: Context, moment: Moments[MomentName]) => void | Promise<void>)
        | undefined;
      await hear?.(ctx, moment);
    };
  }
  return out;
}
