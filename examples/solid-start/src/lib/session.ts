/**
 * Server data for the pages, as `query` functions: each runs on the server (`"use server"`)
 * during server rendering and behind a fetch on client navigation.
 */
import {
  AuthError,
  getAccessToken,
  getCsrfToken,
  getSession,
  getSessionInfo,
  listSecurityEvents,
  requireSession,
} from "@gatehousejs/solid-start";
import { query } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { authConfig, RATE_LIMITS } from "./auth";
import { DEMO_USER } from "./db";
import { isDemo } from "./env";

/**
 * Signed out, a protected page's query sends the visitor to the sign-in page, which brings them
 * back to `page`. Named here because on client navigation the query runs as a server function,
 * whose request does not say which page the browser is going to.
 */
const signInThenBackTo = (page: string) => ({ signIn: true, callbackUrl: page }) as const;

/** A provider's display name by its id ("credentials" is "Email and password"). */
function providerName(id: string | null): string | null {
  if (!id) return null;
  const provider = authConfig.providers.find(
    (p) => (typeof p === "function" ? undefined : p.id) === id,
  );
  return (provider && typeof provider !== "function" && provider.name) || id;
}

/**
 * The session of the current request, or `null`, and whether it signed in through an OpenID
 * provider (only then is "Sign out of the identity provider too" offered).
 */
export const sessionQuery = query(async () => {
  "use server";
  const event = getRequestEvent();
  if (!event) return null;
  const session = await getSession(event.request, authConfig);
  if (!session?.user) return null;
  const info = await getSessionInfo(event.request, authConfig);
  return {
    session,
    signedInWith: providerName(info?.provider ?? null),
    federated: info?.providerType === "oidc",
  };
}, "session");

/**
 * The SSR-protected page's data (signed out: the sign-in page, then back here), with the CSRF
 * token of its sign-out form, which works without JavaScript.
 */
export const protectedQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig, signInThenBackTo("/protected"));
  const event = getRequestEvent();
  return {
    name: session.user.name ?? null,
    email: session.user.email ?? null,
    expires: session.expires,
    renderedAt: new Date().toISOString(),
    csrfToken: event ? await getCsrfToken(event.request, authConfig) : null,
  };
}, "protected");

/**
 * What the demo shows newcomers: the demo account and the rate limits in force, or `null`
 * outside demo mode.
 */
export const demoQuery = query(async () => {
  "use server";
  if (!isDemo()) return null;
  return { email: DEMO_USER.email, password: DEMO_USER.password, limits: RATE_LIMITS };
}, "demo");

/** The sign-in methods' names by id, for the sessions page. */
export const providerNamesQuery = query(async () => {
  "use server";
  const names: Record<string, string> = {};
  for (const provider of authConfig.providers) {
    if (typeof provider !== "function") names[provider.id] = provider.name;
  }
  return names;
}, "provider-names");

/** One line of the activity page: consecutive events that are alike, counted once. */
export interface ActivityGroup {
  id: string;
  type: string;
  count: number;
  /** The newest and the oldest event of the group (ISO 8601). */
  latest: string;
  earliest: string;
  provider: string | null;
  newClient: boolean;
  client: string | null;
  ip: string | null;
  reason: string | null;
}

/**
 * The signed-in user's recent security activity, newest first, consecutive events that are
 * alike (same kind, method, browser, address and reason) grouped into one line with a count:
 * fifty failed attempts are one line, not fifty. Signed out: the sign-in page, then back here.
 * The `session` callback in ./auth.ts puts the user's id in the session.
 */
export const securityEventsQuery = query(async (): Promise<ActivityGroup[]> => {
  "use server";
  const session = await requireSession(authConfig, signInThenBackTo("/activity"));
  const userId = session.user.id;
  if (!userId) return [];
  const events = await listSecurityEvents(authConfig, userId, { limit: 100 });
  const groups: ActivityGroup[] = [];
  for (const event of events) {
    const line = {
      type: event.type,
      provider: providerName(event.provider ?? null),
      newClient: event.newClient ?? false,
      client: event.client ?? null,
      ip: event.ip ?? null,
      reason: event.reason ?? null,
    };
    const last = groups.at(-1);
    const alike =
      last &&
      !line.newClient &&
      !last.newClient &&
      (Object.keys(line) as (keyof typeof line)[]).every((key) => last[key] === line[key]);
    if (alike) {
      last.count += 1;
      last.earliest = event.at.toISOString();
    } else {
      const at = event.at.toISOString();
      groups.push({ id: event.id, count: 1, latest: at, earliest: at, ...line });
    }
  }
  return groups.slice(0, 20);
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
 * The provider-token page's data (signed out: the sign-in page, then back here): a valid access token of
 * the OpenID provider for the signed-in user, from `getAccessToken()` (which renews it with the
 * stored refresh token when it expires within a minute), sent to the provider's userinfo
 * endpoint. The token itself never leaves the server.
 */
export const providerTokenQuery = query(async (): Promise<ProviderTokenResult> => {
  "use server";
  await requireSession(authConfig, signInThenBackTo("/provider-token"));
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
