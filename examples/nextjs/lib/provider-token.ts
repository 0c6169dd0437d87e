import { getAccessToken, RefreshTokenError } from "@gatehousejs/nextjs";
import { authConfig } from "@/auth";
import { pageRequest } from "./request";

/** What the provider-token page shows. */
export type ProviderTokenResult =
  | { status: "unconfigured" }
  | { status: "signInAgain"; reason: "refreshFailed" | "noAccount" }
  | { status: "userinfoFailed"; httpStatus: number }
  | {
      status: "ok";
      tokenType: string;
      /** When the access token expires (ISO 8601), when the provider said. */
      expiresAt: string | null;
      userinfo: Record<string, unknown>;
    };

/** The provider's userinfo endpoint, from its discovery document (kept once found). */
let userinfoEndpoint: Promise<string> | undefined;
function findUserinfoEndpoint(issuer: string): Promise<string> {
  userinfoEndpoint ??= (async () => {
    const url = new URL(
      ".well-known/openid-configuration",
      issuer.endsWith("/") ? issuer : `${issuer}/`,
    );
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    const metadata = (await response.json()) as { userinfo_endpoint?: unknown };
    if (!response.ok || typeof metadata.userinfo_endpoint !== "string") {
      throw new Error("the OpenID provider has no userinfo_endpoint");
    }
    return metadata.userinfo_endpoint;
  })();
  // A failed look-up is tried again at the next visit.
  userinfoEndpoint.catch(() => {
    userinfoEndpoint = undefined;
  });
  return userinfoEndpoint;
}

/**
 * A valid access token of the OpenID provider for the signed-in user, from `getAccessToken()`
 * (which renews it with the stored refresh token when it expires within a minute), sent to the
 * provider's userinfo endpoint. The token itself never leaves the server.
 */
export async function readProviderUserinfo(): Promise<ProviderTokenResult> {
  const issuer = process.env.AUTH_OIDC_ISSUER;
  if (!issuer) return { status: "unconfigured" };
  let token: Awaited<ReturnType<typeof getAccessToken>>;
  try {
    token = await getAccessToken(await pageRequest("/provider-token"), authConfig, "oidc");
  } catch (error) {
    // The provider refused the refresh token (revoked, expired): a new sign-in with it is needed.
    if (error instanceof RefreshTokenError) {
      return { status: "signInAgain", reason: "refreshFailed" };
    }
    throw error;
  }
  // No account with the provider (signed in another way): nothing to call it with.
  if (!token) return { status: "signInAgain", reason: "noAccount" };
  const response = await fetch(await findUserinfoEndpoint(issuer), {
    headers: { authorization: `Bearer ${token.accessToken}`, accept: "application/json" },
    signal: AbortSignal.timeout(5000),
    cache: "no-store",
  });
  if (!response.ok) return { status: "userinfoFailed", httpStatus: response.status };
  return {
    status: "ok",
    tokenType: token.tokenType,
    expiresAt: token.expiresAt ? new Date(token.expiresAt * 1000).toISOString() : null,
    userinfo: (await response.json()) as Record<string, unknown>,
  };
}
