/**
 * `getAccessToken` as `@gatehousejs/core` exports it: the refresh code (and `oauth4webapi`) loads on
 * the first call, so an app that never asks for a provider token never loads it.
 */
import type { AuthConfig } from "../../types/config.js";
import type { AccessToken, GetAccessTokenOptions } from "./access-token.js";

/**
 * A valid access token of the provider `providerId` for the signed-in user of `from` (a request)
 * or for `{ userId }` (server-side), refreshed with the stored refresh token when it expires
 * within `options.skew` seconds (default 60). `null` when there is no such session or account.
 * Throws `RefreshTokenError` when the user must sign in again. See docs/tokens.md.
 */
export async function getAccessToken(
  from: Request | { userId: string },
  config: AuthConfig,
  providerId: string,
  options?: GetAccessTokenOptions,
): Promise<AccessToken | null> {
  const { getAccessToken: run } = await import("./access-token.js");
  return run(from, config, providerId, options);
}
