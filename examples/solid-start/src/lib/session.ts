/**
 * Server data for the pages, as `query` functions: each runs on the server (`"use server"`)
 * during server rendering and behind a fetch on client navigation.
 */
import {
  AuthError,
  getAccessToken,
  getSession,
  listSecurityEvents,
  requireSession,
} from "@gatehousejs/solid-start";
import { query } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { authConfig } from "./auth";
import { DEMO_USER } from "./db";
import { isDemo } from "./env";

/** The session of the current request, or `null`. */
export const sessionQuery = query(async () => {
  "use server";
  const event = getRequestEvent();
  return event ? getSession(event.request, authConfig) : null;
}, "session");

/** The SSR-protected page's data: redirects to `/` without a session. */
export const protectedQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig);
  return {
    name: session.user.name ?? null,
    email: session.user.email ?? null,
    expires: session.expires,
    renderedAt: new Date().toISOString(),
  };
}, "protected");

/** What the demo shows newcomers (the demo account), or `null` outside demo mode. */
export const demoQuery = query(async () => {
  "use server";
  return isDemo() ? { email: DEMO_USER.email, password: DEMO_USER.password } : null;
}, "demo");

/**
 * The signed-in user's recent security activity, newest first (redirects to `/` without a
 * session). The `session` callback in ./auth.ts puts the user's id in the session.
 */
export const securityEventsQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig);
  const userId = session.user.id;
  if (!userId) return [];
  const events = await listSecurityEvents(authConfig, userId, { limit: 20 });
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    at: event.at.toISOString(),
    provider: event.provider ?? null,
    newClient: event.newClient ?? null,
    client: event.client ?? null,
    ip: event.ip ?? null,
    reason: event.reason ?? null,
  }));
}, "security-events");

/** What the provider-token page shows. */
export type ProviderTokenResult =
  | { status: "unconfigured" }
  | { status: "signInAgain"; reason: "refreshFailed" | "noAccount" }
  | { status: "userinfoFailed"; httpStatus: number }
  | {
      status: "ok";
      tokenType: string;
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
  userinfoEndpoint.catch(() => {
    userinfoEndpoint = undefined;
  });
  return userinfoEndpoint;
}

/**
 * The provider-token page's data (redirects to `/` without a session): a valid access token of
 * the OpenID provider for the signed-in user, from `getAccessToken()` (which renews it with the
 * stored refresh token when it expires within a minute), sent to the provider's userinfo
 * endpoint. The token itself never leaves the server.
 */
export const providerTokenQuery = query(async (): Promise<ProviderTokenResult> => {
  "use server";
  await requireSession(authConfig);
  const issuer = process.env.AUTH_OIDC_ISSUER;
  const event = getRequestEvent();
  if (!issuer || !event) return { status: "unconfigured" };
  let token: Awaited<ReturnType<typeof getAccessToken>>;
  try {
    token = await getAccessToken(event.request, authConfig, "oidc");
  } catch (error) {
    // The provider refused the refresh token (revoked, expired): a new sign-in with it is needed.
    if (error instanceof AuthError && error.type === "RefreshTokenError") {
      return { status: "signInAgain", reason: "refreshFailed" };
    }
    throw error;
  }
  // No account with the provider (signed in another way): nothing to call it with.
  if (!token) return { status: "signInAgain", reason: "noAccount" };
  const response = await fetch(await findUserinfoEndpoint(issuer), {
    headers: { authorization: `Bearer ${token.accessToken}`, accept: "application/json" },
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok) return { status: "userinfoFailed", httpStatus: response.status };
  return {
    status: "ok",
    tokenType: token.tokenType,
    expiresAt: token.expiresAt ? new Date(token.expiresAt * 1000).toISOString() : null,
    userinfo: (await response.json()) as Record<string, unknown>,
  };
}, "provider-token");
