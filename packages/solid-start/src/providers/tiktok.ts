/**
 * The TikTok provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export {
  DEFAULT_TIKTOK_FIELDS,
  DEFAULT_TIKTOK_SCOPE,
  default,
  type TikTokError,
  type TikTokOptions,
  type TikTokProfile,
  type TikTokUser,
} from "@gatehouse/core/providers/tiktok";
