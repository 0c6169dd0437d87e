/**
 * Two-factor sign-in (docs/two-factor.md): `TwoFactor()` makes the configuration's `twoFactor`
 * and carries the feature's code, so that only an app that uses it bundles it;
 * `resetTwoFactor()` is the operator's reset.
 * @module
 */
import { carry } from "./lib/features/two-factor/carried.js";
import type { TwoFactorOptions } from "./lib/features/two-factor/options.js";

export { resetTwoFactor } from "./lib/features/two-factor/api.js";
// What two-factor sign-in adds to the open lists (security-log events, error types).
export type {} from "./lib/features/two-factor/errors.js";
export type { TwoFactorOptions } from "./lib/features/two-factor/options.js";
export type {} from "./lib/features/two-factor/types.js";

/**
 * Turns on two-factor sign-in: users who enrol an authenticator app are asked for a code (or a
 * backup code, or their passkey) after their first factor, before any session exists.
 *
 * @example
 * ```ts
 * import TwoFactor from "@gatehousejs/core/two-factor";
 *
 * const config = { twoFactor: TwoFactor({ issuer: "Example" }) };
 * ```
 */
export default function TwoFactor(options: TwoFactorOptions = {}): TwoFactorOptions {
  return carry(
    options,
    async () => (await import("./lib/features/two-factor/parts.js")).twoFactorParts,
  );
}

export { TwoFactor };
