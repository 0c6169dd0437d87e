import { getSessionInfo } from "@gatehousejs/core/integration";
import { authConfig, providerName } from "@/auth";
import { pageRequest } from "./request";

/** How the session of the request being served signed in. */
export interface SignedInWith {
  /** The sign-in method's display name ("Email and password"), when the record says. */
  method: string | null;
  /** Whether it signed in through an OpenID provider: only then is federated sign-out offered. */
  federated: boolean;
}

/**
 * The session record of the request being served (`getSessionInfo()` asks the auth route for
 * the current entry of its sessions list), or `null` signed out.
 */
export async function signedInWith(path: string): Promise<SignedInWith | null> {
  const info = await getSessionInfo(await pageRequest(path), authConfig);
  if (!info) return null;
  return { method: providerName(info.provider), federated: info.providerType === "oidc" };
}
