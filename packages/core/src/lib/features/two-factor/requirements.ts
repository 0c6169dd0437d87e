/**
 * What a configuration with `twoFactor` needs, checked when it is read (./feature.ts `equip`),
 * before any request: an adapter with the methods of ./store.ts, and options that make sense.
 */
import type { ResolvedConfig } from "../../config.js";
import { AuthError, MissingAdapter, MissingAdapterMethods } from "../../errors.js";
import type { Adapter } from "../../types/models.js";

/** The adapter methods two-factor sign-in needs. */
export const TWO_FACTOR_ADAPTER_METHODS = [
  "getUser",
  "getAccount",
  "linkAccount",
  "updateAccount",
] as const satisfies readonly (keyof Adapter)[];

const ALGORITHMS: readonly unknown[] = ["SHA-1", "SHA-256", "SHA-512"];

/** Throws a configuration error naming what is wrong. */
export function checkTwoFactorConfig(config: ResolvedConfig): void {
  const options = config.source.twoFactor;
  if (!options) return;
  if (typeof options !== "object")
    throw new AuthError("twoFactor must be an object ({} for the defaults)");
  const adapter = config.adapter;
  if (!adapter) throw new MissingAdapter("Two-factor sign-in needs an adapter");
  const methods = adapter as Partial<Record<keyof Adapter, unknown>>;
  const missing = TWO_FACTOR_ADAPTER_METHODS.filter((name) => typeof methods[name] !== "function");
  if (missing.length > 0) {
    throw new MissingAdapterMethods(
      `The adapter lacks methods this configuration needs: ${[...missing].sort().join(", ")}`,
    );
  }
  const { issuer, totp = {}, backupCodes, maxAttempts, oauth } = options;
  if (
    issuer !== undefined &&
    (typeof issuer !== "string" || issuer === "" || issuer.includes(":"))
  ) {
    throw new AuthError("twoFactor.issuer must be a non-empty string without ':'");
  }
  if (totp.algorithm !== undefined && !ALGORITHMS.includes(totp.algorithm)) {
    throw new AuthError("twoFactor.totp.algorithm must be SHA-1, SHA-256 or SHA-512");
  }
  if (totp.digits !== undefined && ![6, 7, 8].includes(totp.digits)) {
    throw new AuthError("twoFactor.totp.digits must be 6, 7 or 8");
  }
  if (
    totp.period !== undefined &&
    !(Number.isInteger(totp.period) && totp.period >= 15 && totp.period <= 300)
  ) {
    throw new AuthError("twoFactor.totp.period must be a whole number of seconds from 15 to 300");
  }
  if (
    backupCodes !== undefined &&
    !(Number.isInteger(backupCodes) && backupCodes >= 0 && backupCodes <= 50)
  ) {
    throw new AuthError("twoFactor.backupCodes must be a whole number from 0 to 50");
  }
  if (
    maxAttempts !== undefined &&
    !(Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= 20)
  ) {
    throw new AuthError("twoFactor.maxAttempts must be a whole number from 1 to 20");
  }
  if (oauth !== undefined && typeof oauth !== "boolean" && !Array.isArray(oauth)) {
    throw new AuthError("twoFactor.oauth must be true, false or a list of provider ids");
  }
}
