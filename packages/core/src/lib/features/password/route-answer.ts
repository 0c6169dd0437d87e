/**
 * The action of a password route: the provider named in the path is a password provider (the
 * routes' `providerTypes` saw to it before the action loaded), and its method answers (the code
 * comes with the provider: `Password()` carries its method).
 */
import { InvalidProvider } from "../../errors.js";
import { methodFor } from "../../feature.js";
import type { Action } from "../../routes/define.js";

export function passwordRoute(name: string): Action {
  return async (ctx) => {
    const provider = ctx.requireProvider();
    const answer = (await methodFor(provider))?.routes?.[name];
    if (!answer) throw new InvalidProvider("This provider's sign-in method has no such route");
    return answer(ctx, provider);
  };
}
