/**
 * The action of a password route: the provider named in the path must be a password provider,
 * and its method answers (the code comes with the provider: `Password()` carries its method).
 */
import { InvalidProvider } from "../../errors.js";
import { methodFor } from "../../feature.js";
import type { Action } from "../../routes/define.js";

export function passwordRoute(name: string): Action {
  return async (ctx) => {
    const provider = ctx.requireProvider();
    if ((provider as { type: string }).type !== "password") {
      throw new InvalidProvider("This provider is not a password provider");
    }
    const answer = (await methodFor(provider))?.routes?.[name];
    if (!answer) throw new InvalidProvider("This provider's sign-in method has no such route");
    return answer(ctx, provider);
  };
}
