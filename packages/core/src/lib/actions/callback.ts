/**
 * GET or POST /callback/<provider>: finishes a sign-in with the method of the provider's type
 * (./sign-in/<method>/), loaded by its first request: an app without email or OAuth providers
 * never loads their code.
 */
import type { Context } from "../context.js";
import { InvalidProvider } from "../errors.js";
import { methodFor } from "../feature.js";
import type { ResponseInternal } from "../types/config.js";

export async function callback(ctx: Context): Promise<ResponseInternal> {
  const provider = ctx.requireProvider();
  const method = await methodFor(provider);
  if (!method) throw new InvalidProvider("This provider type has no callback");
  return method.callback(ctx, provider);
}
