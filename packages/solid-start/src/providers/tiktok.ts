/**
 * The TikTok provider of `@gatehousejs/core`, for SolidStart apps.
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
} from "@gatehousejs/core/providers/tiktok";
