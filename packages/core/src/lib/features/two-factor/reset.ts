/** The operator's reset of a user's second factor (./api.ts). */
import type { ResolvedConfig } from "../../config.js";
import { AuthError } from "../../errors.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { RESET_EVENT } from "./events.js";
import { checkTwoFactorConfig } from "./requirements.js";
import { clearTwoFactor, readTwoFactor } from "./store.js";

export async function resetUserTwoFactor(config: ResolvedConfig, userId: string): Promise<boolean> {
  if (!config.source.twoFactor)
    throw new AuthError("resetTwoFactor needs twoFactor in the configuration");
  checkTwoFactorConfig(config);
  const source = { config };
  for (let attempt = 0; attempt < 4; attempt++) {
    const record = await readTwoFactor(source, userId);
    if (!record) return false;
    if (await clearTwoFactor(source, userId, record)) {
      await recordSecurityEvent(config, { userId, type: RESET_EVENT, reason: "operator" });
      return true;
    }
  }
  throw new AuthError("The second factor kept changing while it was being reset; try again");
}
