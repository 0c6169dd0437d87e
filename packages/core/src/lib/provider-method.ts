/**
 * The key under which a provider object carries its own sign-in method, which the kernel takes
 * over the installed features' method for the provider's type (./feature.ts `methodFor`). A
 * provider factory attaches it when the method's code should reach a bundle only with that
 * factory: a bundler keeps every `import()` it can see, and a single-file edge bundle inlines them
 * all, so a method installed with the built-ins is in every app. A symbol, so that no
 * configuration read from JSON or the environment can name it; registered, so that two copies of
 * the package agree.
 *
 * Apart from ./feature.ts so that the configuration (./config.ts, which ./feature.ts depends on)
 * can ask whether a provider of a type it does not know brings its own method.
 */
export const providerMethod: unique symbol = Symbol.for("gatehouse.providerMethod");

/** What a carried method must at least be: the provider types it serves and its loader. */
export interface CarriedMethod {
  types: readonly string[];
  load: () => Promise<unknown>;
}

interface Carrier {
  type: string;
  [providerMethod]?: CarriedMethod;
}

/** `provider`, carrying `method` (enumerable: `{ ...provider, id: "other" }` keeps it). */
export function attachMethod<P extends { type: string }, M extends CarriedMethod>(
  provider: P,
  method: M,
): P {
  return Object.assign(provider, { [providerMethod]: method });
}

/** The method a provider carries for its own type, if any. */
export function carried(provider: object): CarriedMethod | undefined {
  const { type, [providerMethod]: method } = provider as Carrier;
  return method &&
    typeof method.load === "function" &&
    Array.isArray(method.types) &&
    method.types.includes(type)
    ? method
    : undefined;
}
