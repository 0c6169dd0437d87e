/**
 * The browsers a user trusted at the two-factor challenge ("don't ask again on this browser"), as
 * the browser client lists and forgets them (docs/two-factor.md, "Trusted browsers").
 */
import { postTwoFactor, type TwoFactorRouteOptions } from "./two-factor-route.js";

/**
 * A browser the user trusted at the challenge, as `twoFactorStatus()` (./two-factor.ts) lists it: no address,
 * no cookie. The dates are ISO 8601 strings in UTC, as the server sends them
 * (`"2026-11-26T21:15:57.000Z"`): `new Date(createdAt)` reads one.
 */
export interface TrustedBrowser {
  /** Its id in the user's list: what {@link forgetTrustedBrowser} takes. */
  id: string;
  /** A short description from its User-Agent ("Firefox on Linux"), or `"Unknown client"`. */
  client: string;
  /** When it was trusted, as an ISO 8601 string in UTC. */
  createdAt: string;
  /** When the trust ends by itself (30 days after), as an ISO 8601 string in UTC. */
  expiresAt: string;
  /** Whether it is the browser asking. */
  current: boolean;
}

/** Which trusted browsers {@link forgetTrustedBrowser} forgets. */
export type ForgetTrustedBrowserTarget =
  /** One, by the `id` `twoFactorStatus()` (./two-factor.ts) listed. */
  | { id: string; all?: undefined }
  /** Every one, listed or not: no trust cookie made before works any more. */
  | { all: true; id?: undefined };

/** What {@link forgetTrustedBrowser} resolves to. */
export interface TrustedBrowserForgotten {
  ok: true;
  /** `trustedBrowserForgotten` for one, `trustedBrowsersForgotten` for all. */
  status: "trustedBrowserForgotten" | "trustedBrowsersForgotten";
  /** What to tell the user, written by the server. */
  message: string;
  /** The trusted browsers left, as `twoFactorStatus()` (./two-factor.ts) lists them. */
  trustedBrowsers: TrustedBrowser[];
}

/** The trusted browsers of an answer, when `value` is such a list; else `undefined`. */
export function trustedBrowsersOf(value: unknown): TrustedBrowser[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list: TrustedBrowser[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== "object" || item === null) return undefined;
    const { id, client, createdAt, expiresAt, current } = item as Record<string, unknown>;
    if (
      typeof id !== "string" ||
      typeof client !== "string" ||
      typeof createdAt !== "string" ||
      typeof expiresAt !== "string" ||
      typeof current !== "boolean"
    ) {
      return undefined;
    }
    list.push({ id, client, createdAt, expiresAt, current });
  }
  return list;
}

/** `{ id }` or `{ all: true }`; anything else is refused before any request. */
function forgetTargetOf(target: unknown): { id: string } | { all: true } {
  if (typeof target === "object" && target !== null) {
    const { id, all } = target as { id?: unknown; all?: unknown };
    if (typeof id === "string" && id !== "" && all === undefined) return { id };
    if (all === true && id === undefined) return { all: true };
  }
  throw new TypeError("forgetTrustedBrowser takes { id } or { all: true }");
}

/**
 * Forgets a trusted browser of the signed-in user (`POST <basePath>/two-factor/forget-browser`):
 * one by the `id` `twoFactorStatus()` (./two-factor.ts) listed, or every one (`{ all: true }`). A forgotten
 * browser is asked for a code at its next sign-in; forgetting this browser also clears its trust
 * cookie. The session is not touched. Resolves with the trusted browsers left.
 *
 * Rejects with a `TypeError`, before any request, unless given `{ id }` (a non-empty string) or
 * `{ all: true }`; with an {@link AuthRouteError}: `InvalidTrustedBrowser` (400, an id that is
 * not one), `UnknownTrustedBrowser` (404, not one of the user's trusted browsers, or forgotten
 * already), `Unauthenticated` (401) when nobody is signed in.
 *
 * @example
 * ```ts
 * import { forgetTrustedBrowser, twoFactorStatus } from "@gatehousejs/core/client";
 *
 * const status = await twoFactorStatus();
 * const other = status?.trustedBrowsers.find((browser) => !browser.current);
 * if (other) await forgetTrustedBrowser({ id: other.id });
 * // Or every one of them: await forgetTrustedBrowser({ all: true });
 * ```
 */
export async function forgetTrustedBrowser(
  target: ForgetTrustedBrowserTarget,
  options: TwoFactorRouteOptions = {},
): Promise<TrustedBrowserForgotten> {
  const fields = forgetTargetOf(target);
  const what = "to forgetting a trusted browser";
  const body = await postTwoFactor("forget-browser", what, options, fields);
  const { status, message } = body;
  const trustedBrowsers = trustedBrowsersOf(body.trustedBrowsers);
  const expected = "all" in fields ? "trustedBrowsersForgotten" : "trustedBrowserForgotten";
  if (status !== expected || typeof message !== "string" || trustedBrowsers === undefined) {
    throw new Error(`The auth route's answer ${what} is not one the client knows`);
  }
  return { ok: true, status: expected, message, trustedBrowsers };
}
