/**
 * Microsoft Entra ID (formerly Azure AD): OpenID Connect on the Microsoft identity platform v2.0.
 * @module
 */
import { processEnv } from "../lib/env.js";
import { customFetch } from "../lib/symbols.js";
import type { OAuthConfig } from "../lib/types/providers.js";

/**
 * The claims of a v2.0 ID token (Microsoft's "ID token claims reference"). `email`, `name` and
 * `preferred_username` need the `email` and `profile` scopes; none of them is verified by Entra.
 */
export interface MicrosoftEntraIDProfile {
  aud: string;
  /** `https://login.microsoftonline.com/<tid>/v2.0`. */
  iss: string;
  iat: number;
  nbf?: number;
  exp: number;
  /** The user's id for this application (pairwise). */
  sub: string;
  /** The user's object id in the tenant, the same for every application. */
  oid?: string;
  /** The tenant the user signed in to; `9188040d-6c67-4c5b-b112-36a304b66dad` for personal accounts. */
  tid?: string;
  name?: string;
  /** The sign-in name (often a UPN or an address): mutable, not verified, not an address claim. */
  preferred_username?: string;
  /** An address the tenant holds for the user; optional and not verified by Entra. */
  email?: string;
  login_hint?: string;
  nonce?: string;
  idp?: string;
  ver?: "2.0" | string;
  roles?: string[];
  groups?: string[];
  sid?: string;
  aio?: string;
  rh?: string;
  uti?: string;
  [claim: string]: unknown;
}

/** The photo sizes Microsoft Graph keeps (`/me/photos/{size}`), in pixels. */
export type MicrosoftEntraIDPhotoSize = 48 | 64 | 96 | 120 | 240 | 360 | 432 | 504 | 648;

/** Options of {@link MicrosoftEntraID}. */
export interface MicrosoftEntraIDOptions
  extends Partial<Omit<OAuthConfig<MicrosoftEntraIDProfile>, "type">> {
  /**
   * The tenant: `common` (work, school and personal accounts), `organizations`, `consumers`, or a
   * tenant id or domain. Used when neither `issuer` nor `AUTH_MICROSOFT_ENTRA_ID_ISSUER` is set.
   * Default `common`.
   */
  tenantId?: string;
  /** The profile photo's size, fetched from Microsoft Graph as a `data:` URL; `false`: no photo. Default 48. */
  profilePhotoSize?: MicrosoftEntraIDPhotoSize | false;
  /** Scopes. Default `openid profile email User.Read` (User.Read: the photo). */
  scope?: string;
}

/** The issuer of a tenant (or `common`, `organizations`, `consumers`). */
export function entraIssuer(tenant: string): string {
  return `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/v2.0`;
}

export const DEFAULT_ENTRA_SCOPE = "openid profile email User.Read";
/** A photo larger than this is not used: it would swell every session cookie. */
export const MAX_ENTRA_PHOTO_BYTES = 64 * 1024;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#f25022" d="M2 2h9.5v9.5H2z"/><path fill="#7fba00" d="M12.5 2H22v9.5h-9.5z"/><path fill="#00a4ef" d="M2 12.5h9.5V22H2z"/><path fill="#ffb900" d="M12.5 12.5H22V22h-9.5z"/></svg>',
  );

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/**
 * The signed-in user's photo from Microsoft Graph as a `data:` URL, or null when there is none or
 * the call fails in any way (no photo, no `User.Read`, a personal account, a timeout, a 5xx): the
 * photo is optional and never fails the sign-in.
 */
export async function entraPhoto(
  accessToken: unknown,
  size: MicrosoftEntraIDPhotoSize,
  fetchImpl: typeof fetch = fetch,
): Promise<string | null> {
  if (typeof accessToken !== "string" || accessToken === "") return null;
  try {
    const response = await fetchImpl(
      `https://graph.microsoft.com/v1.0/me/photos/${size}x${size}/$value`,
      {
        headers: { authorization: `Bearer ${accessToken}` },
        redirect: "manual",
        signal: AbortSignal.timeout(5000),
      },
    );
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!response.ok || !/^image\/(jpeg|png|gif|webp|bmp)$/.test(type)) {
      await response.body?.cancel();
      return null;
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length === 0 || bytes.length > MAX_ENTRA_PHOTO_BYTES) return null;
    return `data:${type};base64,${base64(bytes)}`;
  } catch {
    return null;
  }
}

/**
 * The Microsoft Entra ID provider. Credentials from `AUTH_MICROSOFT_ENTRA_ID_ID`,
 * `AUTH_MICROSOFT_ENTRA_ID_SECRET` and the issuer from `AUTH_MICROSOFT_ENTRA_ID_ISSUER`
 * (`https://login.microsoftonline.com/<tenant>/v2.0`), else the `tenantId` option, else `common`.
 * Register the redirect URI `<origin><basePath>/callback/microsoft-entra-id` (platform "Web").
 *
 * For `common` and `organizations`, Microsoft's discovery names the issuer
 * `https://login.microsoftonline.com/{tenantid}/v2.0`: each ID token must name that URL with its own
 * `tid`. With `User.Read` in the scope (the default) the user's photo is fetched from Microsoft
 * Graph as a `data:` URL; a failure leaves `image` null and the sign-in goes on. Entra does not
 * verify `email`: it is used as an unproven address (never linked into another user by itself).
 *
 * @example
 * ```ts
 * MicrosoftEntraID({ tenantId: "organizations", profilePhotoSize: 96 })
 * ```
 */
export default function MicrosoftEntraID(
  options: MicrosoftEntraIDOptions = {},
): OAuthConfig<MicrosoftEntraIDProfile> {
  const {
    tenantId,
    profilePhotoSize = 48,
    scope = DEFAULT_ENTRA_SCOPE,
    issuer,
    authorization,
    ...rest
  } = options;
  const fetchImpl = options[customFetch];
  const params = typeof authorization === "object" ? authorization.params : undefined;
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    authorization: {
      ...(typeof authorization === "string" ? { url: authorization } : authorization),
      params: { scope, ...params },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["pkce", "state", "nonce"],
    async profile(profile, tokens) {
      const image =
        profilePhotoSize === false
          ? null
          : await entraPhoto(tokens.access_token, profilePhotoSize, fetchImpl);
      return {
        id: profile.sub,
        name: typeof profile.name === "string" && profile.name !== "" ? profile.name : null,
        email: typeof profile.email === "string" && profile.email !== "" ? profile.email : null,
        image,
      };
    },
    style: { bg: "#ffffff", text: "#1b1b1b", brandColor: "#0078d4", logo },
    ...rest,
    // Read when the configuration is first used, like the other credentials.
    get issuer() {
      if (issuer !== undefined) return issuer;
      if (tenantId !== undefined) return entraIssuer(tenantId);
      return processEnv().AUTH_MICROSOFT_ENTRA_ID_ISSUER || entraIssuer("common");
    },
    type: "oidc",
  };
}
