/**
 * `listPasskeys()` and `removePasskey()`: the signed-in user's passkeys, from the browser.
 */
import { basePathOf } from "./base-path.js";
import { refusalOf, retryAfterOf } from "./errors.js";
import { fetchCsrfToken, postJson } from "./transport.js";

/** Options of {@link listPasskeys} and {@link removePasskey}. */
export interface PasskeyRouteOptions {
  /** The auth route's base path. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
  /**
   * Where the sign-in page comes back to when {@link removePasskey} is refused with
   * `ReauthenticationRequired` (checked by the server's `redirect` callback). Default: the
   * server's default (the site's root).
   */
  callbackUrl?: string;
}

/** One passkey of the signed-in user, as {@link listPasskeys} gives it. Never its public key. */
export interface PasskeyInfo {
  /** The credential id (base64), what {@link removePasskey} takes. */
  credentialID: string;
  /** The id of the passkey provider it signs in with, or `null` when the server cannot tell. */
  provider: string | null;
  /** `singleDevice`, or `multiDevice` for a passkey a password manager syncs. */
  deviceType: string;
  /** Whether the passkey is backed up (synced to the user's other devices). */
  backedUp: boolean;
  /** How the browser reaches the authenticator: `internal`, `usb`, `nfc`, `ble`, `hybrid`, … */
  transports: string[];
}

/** What {@link removePasskey} resolves to. */
export interface PasskeyRemoved {
  status: "passkeyRemoved";
  /** Words for the user. */
  message: string;
  /** The passkeys the user still holds. */
  passkeys: PasskeyInfo[];
}

const isPasskey = (item: unknown): item is PasskeyInfo => {
  if (typeof item !== "object" || item === null) return false;
  const p = item as Record<string, unknown>;
  return (
    typeof p.credentialID === "string" &&
    (typeof p.provider === "string" || p.provider === null) &&
    typeof p.deviceType === "string" &&
    typeof p.backedUp === "boolean" &&
    Array.isArray(p.transports) &&
    p.transports.every((t) => typeof t === "string")
  );
};

const passkeysIn = (body: Record<string, unknown> | null): PasskeyInfo[] | undefined => {
  const list = body?.passkeys;
  return Array.isArray(list) && list.every(isPasskey) ? list : undefined;
};

const asObject = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

/**
 * The signed-in user's passkeys (`GET <basePath>/passkeys`); `null` when nobody is signed in.
 *
 * Rejects with an {@link AuthRouteError}: `PasskeysOff` (404) when the server has no passkey
 * provider.
 *
 * @example
 * ```ts
 * import { listPasskeys } from "@gatehousejs/core/client";
 *
 * for (const passkey of (await listPasskeys()) ?? []) {
 *   console.log(passkey.credentialID, passkey.backedUp ? "synced" : "this device only");
 * }
 * ```
 */
export async function listPasskeys(
  options: PasskeyRouteOptions = {},
): Promise<PasskeyInfo[] | null> {
  const response = await fetch(`${basePathOf(options.basePath)}/passkeys`, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  if (response.status === 401) return null;
  const body = asObject(await response.json().catch(() => null));
  if (!response.ok) {
    const answer = { status: response.status, retryAfter: retryAfterOf(response, body) };
    throw refusalOf("for the passkeys", answer, body ?? {});
  }
  const passkeys = passkeysIn(body);
  if (!passkeys) throw new Error("The auth route's passkeys answer is not a list");
  return passkeys;
}

/**
 * Removes one of the signed-in user's passkeys (`POST <basePath>/passkeys/remove`, with the
 * CSRF token), by the `credentialID` {@link listPasskeys} gave. Resolves with the passkeys left.
 *
 * Removing a passkey is a sensitive action. Rejects with an {@link AuthRouteError}:
 * `ReauthenticationRequired` (403) for a user with two-factor sign-in on whose sign-in is older
 * than ten minutes (send the browser to the error's `signInUrl`, which comes back to
 * `callbackUrl`, then ask again); `LastWayIn` when the passkey is the user's only way to sign in
 * (no other passkey, password, proven address with email sign-in, or OAuth account);
 * `UnknownPasskey` (404) for an id that is not one of the user's passkeys; `InvalidPasskey`;
 * `PasskeyRemovalUnsupported` when the server's adapter cannot delete passkeys;
 * `Unauthenticated` (401); `PasskeysOff` (404).
 *
 * @example
 * ```ts
 * import { AuthRouteError, removePasskey } from "@gatehousejs/core/client";
 *
 * try {
 *   const { passkeys } = await removePasskey("bXkgY3JlZGVudGlhbA==", { callbackUrl: "/account" });
 *   console.log(`${passkeys.length} passkeys left`);
 * } catch (error) {
 *   if (error instanceof AuthRouteError && error.signInUrl) location.assign(error.signInUrl);
 *   else throw error;
 * }
 * ```
 */
export async function removePasskey(
  credentialID: string,
  options: PasskeyRouteOptions = {},
): Promise<PasskeyRemoved> {
  if (typeof credentialID !== "string" || credentialID === "") {
    throw new TypeError("removePasskey takes the credentialID listPasskeys gave");
  }
  const base = basePathOf(options.basePath);
  const csrfToken = await fetchCsrfToken(base);
  const fields: Record<string, unknown> = { credentialID, csrfToken };
  if (options.callbackUrl !== undefined) fields.callbackUrl = options.callbackUrl;
  const answer = await postJson(`${base}/passkeys/remove`, fields);
  const body = answer.body ?? {};
  if (!answer.ok) throw refusalOf("to removing the passkey", answer, body);
  const passkeys = passkeysIn(body);
  if (body.status !== "passkeyRemoved" || !passkeys) {
    throw new Error("The auth route's answer to removing the passkey is not a removal");
  }
  return {
    status: "passkeyRemoved",
    message: typeof body.message === "string" ? body.message : "",
    passkeys,
  };
}
