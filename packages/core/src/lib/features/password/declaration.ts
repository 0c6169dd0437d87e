/**
 * The password sign-in method as `Password()` carries it (../../feature.ts, `providerMethod`):
 * only the provider's module imports this, so an app without a password provider bundles none
 * of the method's code.
 */
import type { MethodDeclaration } from "../../feature.js";

export const passwordDeclaration: MethodDeclaration = {
  types: ["password"],
  load: async () => (await import("./method.js")).passwordMethod,
};
