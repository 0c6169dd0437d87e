/**
 * Discord sign-in (OAuth 2).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";

/** A Discord user, as `GET /users/@me` returns it (`email` and `verified` need the `email` scope). */
export interface DiscordProfile {
  /** The user's snowflake id. */
  id: string;
  username: string;
  /** `"0"` for users on the unique-username system, else the old four-digit tag. */
  discriminator: string;
  /** The display name, if the user set one. */
  global_name: string | null;
  /** The avatar hash; `a_…` for an animated avatar; `null` for the default avatar. */
  avatar: string | null;
  bot?: boolean;
  system?: boolean;
  mfa_enabled?: boolean;
  banner?: string | null;
  accent_color?: number | null;
  locale?: string;
  /** Whether the email was verified. */
  verified?: boolean;
  email?: string | null;
  flags?: number;
  premium_type?: number;
  public_flags?: number;
  avatar_decoration_data?: { asset: string; sku_id: string } | null;
  [key: string]: unknown;
}

/** Options of {@link Discord}. */
export interface DiscordOptions extends Partial<Omit<OAuthConfig<DiscordProfile>, "type">> {
  /** Space-separated scopes. Default `identify email`. */
  scope?: string;
}

/** The scopes asked for by default: the user, and their address. */
export const DEFAULT_DISCORD_SCOPE = "identify email";

const CDN = "https://cdn.discordapp.com";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M7 6c1.5-.7 3-1 5-1s3.5.3 5 1c1.6 2.4 2.5 5 2.5 8.5-1.4 1.1-3 1.9-4.5 2.4l-1-1.6c-1.3.3-2.7.3-4 0l-1 1.6c-1.5-.5-3.1-1.3-4.5-2.4C4.5 11 5.4 8.4 7 6zm2.5 5.5a1.3 1.4 0 1 0 0 2.8 1.3 1.4 0 0 0 0-2.8zm5 0a1.3 1.4 0 1 0 0 2.8 1.3 1.4 0 0 0 0-2.8z"/></svg>',
  );

/**
 * The user's avatar on Discord's CDN: their own (a GIF when the hash starts with `a_`), else the
 * default avatar Discord shows, picked from the id (unique usernames) or the old discriminator.
 */
export function discordAvatarUrl(
  user: Pick<DiscordProfile, "id" | "avatar" | "discriminator">,
): string {
  if (user.avatar) {
    const format = user.avatar.startsWith("a_") ? "gif" : "png";
    return `${CDN}/avatars/${user.id}/${user.avatar}.${format}`;
  }
  const legacy = user.discriminator && user.discriminator !== "0";
  const index = legacy
    ? Number.parseInt(user.discriminator, 10) % 5
    : Number((BigInt(user.id) >> 22n) % 6n);
  return `${CDN}/embed/avatars/${index}.png`;
}

/**
 * The Discord provider. Client id and secret come from the options or from `AUTH_DISCORD_ID` and
 * `AUTH_DISCORD_SECRET`. The callback URL to register (OAuth2 → Redirects) is
 * `<origin><basePath>/callback/discord`.
 *
 * Sign-in uses PKCE (S256) and state and the scopes `identify email`; the client authenticates
 * with HTTP Basic. The name is the display name, else the username; the image is the user's
 * avatar or Discord's default one. An email Discord has not verified is shown but never finds,
 * links or is stored as a user's address.
 *
 * @example
 * ```ts
 * import Discord from "@gatehousejs/core/providers/discord";
 *
 * const provider = Discord({ scope: "identify email guilds" });
 * ```
 */
export default function Discord(options: DiscordOptions = {}): OAuthConfig<DiscordProfile> {
  const { scope = DEFAULT_DISCORD_SCOPE, ...rest } = options;
  return {
    id: "discord",
    name: "Discord",
    authorization: { url: "https://discord.com/oauth2/authorize", params: { scope } },
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/v10/users/@me",
    checks: ["pkce", "state"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.id,
        name: profile.global_name || profile.username,
        email: profile.email || null,
        image: discordAvatarUrl(profile),
      };
    },
    emailIsAddress(profile) {
      return profile.verified === true;
    },
    style: { bg: "#5865f2", text: "#ffffff", brandColor: "#5865f2", logo },
    ...rest,
    type: "oauth",
  };
}
