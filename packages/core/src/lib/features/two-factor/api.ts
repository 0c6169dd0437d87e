/**
 * The server API of two-factor sign-in: what an app calls with its `AuthConfig` and a user id it
 * trusts (an operator's screen). Its code loads on the first call.
 */
import { resolveConfig } from "../../config.js";
import type { AuthConfig } from "../../types/config.js";

/**
 * Turns off a user's second factor, for an operator helping a user who lost both the
 * authenticator app and the backup codes (after checking who they are some other way): the
 * secret and the backup codes are cleared, the next sign-in asks for the first factor only, and
 * the security log records `twoFactorReset`. Resolves to `true` when the user had a second
 * factor, `false` otherwise. Throws when the configuration has no `twoFactor` or its adapter
 * cannot hold one.
 *
 * @example
 * ```ts
 * import { resetTwoFactor } from "@gatehousejs/core/two-factor";
 *
 * if (await resetTwoFactor(config, userId)) console.log("The user can enrol again.");
 * ```
 */
export async function resetTwoFactor(config: AuthConfig, userId: string): Promise<boolean> {
  if (typeof userId !== "string" || userId === "") return false;
  const { resetUserTwoFactor } = await import("./reset.js");
  return resetUserTwoFactor(resolveConfig(config), userId);
}
