/**
 * The default callbacks, and the rule that keeps redirects on the site's own origin.
 */
import { InvalidCallbackUrl } from "./errors.js";
import type { CallbacksOptions, SessionCallbackResult } from "./types/config.js";

/**
 * Resolves `url` against `baseUrl` and keeps it only when it stays on the same origin.
 * Protocol-relative (`//host`), backslash (`/\host`) and scheme-only (`https:host`) forms are
 * refused, as is anything that is not http(s).
 */
export function sameOriginUrl(url: string, baseUrl: string): string | undefined {
  if (typeof url !== "string" || url.length === 0 || url.length > 4096) return undefined;
  // Control characters and backslashes have no business in a callback URL; browsers "repair"
  // them in ways that can change the host.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of this check
  if (/[\u0000-\u001f\u007f\\]/.test(url)) return undefined;
  const base = new URL(baseUrl);
  if (url.startsWith("/")) {
    // Also refuse `/%2F…` and `/%5C…`: an app that decodes its paths would see `//host`.
    if (url.startsWith("//") || /^\/%(?:2f|5c)/i.test(url)) return undefined;
    const resolved = new URL(url, base.origin);
    return resolved.origin === base.origin ? resolved.href : undefined;
  }
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  // `https:evil.example` parses as `https://evil.example/`: require the literal `//`.
  if (!/^https?:\/\//i.test(url)) return undefined;
  // Same origin: keep the URL as written (it has passed every check above).
  return parsed.origin === base.origin ? url : undefined;
}

/** The callbacks Gatehouse runs when the configuration sets none. */
export const defaultCallbacks: Required<CallbacksOptions> = {
  signIn: () => true,
  redirect: ({ url, baseUrl }) => {
    const safe = sameOriginUrl(url, baseUrl);
    if (safe === undefined) {
      throw new InvalidCallbackUrl("The callback URL is not on this site's origin");
    }
    return safe;
  },
  // Only what Auth.js exposes by default: never an id, a stored column or the session token.
  session: ({ session }) => {
    const user = session.user;
    const out: SessionCallbackResult = { expires: session.expires };
    // "" is how adapters store "no address" (a passkey-only user): the client sees null.
    if (user) out.user = { name: user.name, email: user.email || null, image: user.image };
    // A provider refused the refresh token: the client learns that a new sign-in is needed.
    if (session.error === "RefreshTokenError") out.error = session.error;
    return out;
  },
  jwt: ({ token }) => token,
};
