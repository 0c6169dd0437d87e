import { AuthRouteError } from "@gatehousejs/nextjs/client";

/** What a page shows after one of the client kit's calls was refused. */
export interface Refusal {
  /** The route's own words for the user (a wrong password, a refused new one), or `fallback`. */
  message: string;
  /**
   * Where to sign in again when the action needs a fresh sign-in (`ReauthenticationRequired`),
   * coming back to `page`; else `undefined`.
   */
  signInAgain?: string;
}

/** Reads a refusal of the client kit: the route's message, and a way to sign in again. */
export function refusalOf(error: unknown, fallback: string, page: string): Refusal {
  if (!(error instanceof AuthRouteError)) return { message: `${fallback} Try again.` };
  const refusal: Refusal = { message: error.detail ?? fallback };
  if (error.error === "ReauthenticationRequired") {
    // The sign-in page asks for every factor again, then comes back to this page.
    const url = new URL(error.signInUrl ?? "/api/auth/signin", window.location.href);
    url.searchParams.set("callbackUrl", page);
    refusal.signInAgain = url.pathname + url.search;
  }
  return refusal;
}
