/**
 * Two-factor sign-in's code travels with its configuration value, as a provider carries its
 * sign-in method (../../provider-method.ts): `TwoFactor()` (the `@gatehousejs/core/two-factor`
 * entry) returns the options with the loader of ./parts.ts under a symbol, and the built-in
 * declaration (./feature.ts) asks that loader for every route, the sign-in step, the listener and
 * the fresh-proof check. So only an app that imports `TwoFactor` bundles the routes, the pages,
 * TOTP and the QR code: a one-file Workers bundle inlines every `import()` it can reach, and the
 * built-in declarations are in every app.
 */
import type { ResolvedConfig } from "../../config.js";
import { AuthError } from "../../errors.js";
import type { Action } from "../../routes/define.js";
import type { TwoFactorParts } from "./parts-types.js";

const carrier = Symbol.for("gatehouse.two-factor");

/** The sign-in step's id, in the kernel's list of steps a sign-in passed. */
export const TWO_FACTOR_STEP = "two-factor";

/** What `TwoFactor()` attaches: the loader of the feature's code. */
export type TwoFactorLoader = () => Promise<TwoFactorParts>;

/** `options` carrying `load` (enumerable: `{ ...TwoFactor(), issuer }` keeps it). */
export function carry<T extends object>(options: T, load: TwoFactorLoader): T {
  return Object.defineProperty({ ...options }, carrier, {
    value: load,
    enumerable: true,
  }) as T;
}

/** Whether a configuration's `twoFactor` came from `TwoFactor()`. */
export function carriesTwoFactor(options: unknown): boolean {
  return (
    typeof options === "object" &&
    options !== null &&
    typeof (options as Record<symbol, unknown>)[carrier] === "function"
  );
}

const loaded = new WeakMap<object, Promise<TwoFactorParts>>();

/** The feature's code for `config`, loaded once per configuration value. */
export function partsFor(config: ResolvedConfig): Promise<TwoFactorParts> {
  const options = config.source.twoFactor as (object & Record<symbol, unknown>) | undefined;
  const load = options?.[carrier];
  if (!options || typeof load !== "function") {
    return Promise.reject(
      new AuthError("twoFactor must be made with TwoFactor() from @gatehousejs/core/two-factor"),
    );
  }
  let found = loaded.get(options);
  if (!found) {
    found = (load as TwoFactorLoader)();
    loaded.set(options, found);
    // A failed import is tried again by the next request.
    found.catch(() => loaded.delete(options));
  }
  return found;
}

/** A route's action: the carried code's, by route name. */
export function carriedRoute(name: string): Action {
  return async (ctx) => {
    const action = (await partsFor(ctx.config)).routes[name];
    if (!action) throw new AuthError(`Two-factor sign-in has no action ${name}`);
    return action(ctx);
  };
}
