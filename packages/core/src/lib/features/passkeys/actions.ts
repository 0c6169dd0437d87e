/**
 * The signed-in user's passkeys:
 *
 * - GET /passkeys lists them (JSON): each one's credential id, device type, whether it is backed
 *   up, its transports and its provider; never its public key or its counter;
 * - POST /passkeys/remove (`credentialID`, JSON or form, CSRF-checked) removes one of them: its
 *   authenticator, then its account row. It is a sensitive action: a user whose account asks for
 *   a fresh sign-in (two-factor sign-in on) must have signed in within ten minutes
 *   (../step-up/fresh-proof.ts), and nobody removes their last way in (./ways-in.ts). Another
 *   user's credential id is answered as an unknown one. The security log records
 *   `passkeyRemoved`; browsers trusted to skip a second factor end, as after a password change.
 *
 * The user is found from the session cookie alone, so no request reaches another user's passkeys.
 */
import { requireCsrf } from "../../actions/csrf.js";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { AuthError } from "../../errors.js";
import { announce } from "../../moments.js";
import { jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import { identifySession, type SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter, AdapterAuthenticator } from "../../types/models.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { hasFreshProof, reauthenticate } from "../step-up/fresh-proof.js";
import { refusal, wantsJson } from "./answer.js";
import { PASSKEY_REMOVED_EVENT } from "./events.js";
import { passkeyProviderIds, passkeysOn } from "./providers.js";
import { keepsAnotherWayIn } from "./ways-in.js";

/** The route of the removal (the security log's reason when it asks for a fresh sign-in). */
export const REMOVE_ROUTE = "passkeys/remove";

/** One passkey as the list shows it. */
export interface PasskeyInfo {
  /** The credential id, as stored (base64): what POST /passkeys/remove takes. */
  credentialID: string;
  /** The id of the WebAuthn provider it signs in with (`null` when no account row names one). */
  provider: string | null;
  /** `singleDevice` or `multiDevice` (a synced passkey). */
  deviceType: string;
  /** Whether the authenticator said it is backed up (synced). */
  backedUp: boolean;
  /** How the browser reaches the authenticator (`internal`, `usb`, `hybrid`, …). */
  transports: string[];
}

/** The JSON answer of a removal (with the passkeys left). */
export const PASSKEY_REMOVED = { status: "passkeyRemoved", message: "The passkey was removed." };

/** The provider each credential id was registered under, by credential id. */
async function providersOf(
  ctx: Context,
  userId: string,
  passkeys: readonly AdapterAuthenticator[],
): Promise<Map<string, string>> {
  const ids = passkeyProviderIds(ctx.config);
  const can = capabilitiesOf(ctx.config);
  const found = new Map<string, string>();
  const accounts = await can.listAccounts?.(userId);
  if (accounts) {
    for (const a of accounts) {
      if (ids.includes(a.provider)) found.set(a.providerAccountId, a.provider);
    }
    return found;
  }
  for (const passkey of passkeys) {
    const provider = await accountProvider(ctx, userId, passkey.credentialID);
    if (provider) found.set(passkey.credentialID, provider);
  }
  return found;
}

/** The WebAuthn provider under which the user holds the account of `credentialID`, if any. */
async function accountProvider(
  ctx: Context,
  userId: string,
  credentialID: string,
): Promise<string | undefined> {
  const { getAccount } = capabilitiesOf(ctx.config);
  for (const provider of passkeyProviderIds(ctx.config)) {
    const account = await getAccount?.(credentialID, provider);
    if (account && account.userId === userId) return provider;
  }
  return undefined;
}

/** The user's passkeys, as the list shows them. */
async function passkeysOf(ctx: Context, userId: string): Promise<PasskeyInfo[]> {
  const stored = (await capabilitiesOf(ctx.config).listAuthenticators?.(userId)) ?? [];
  const providers = await providersOf(ctx, userId, stored);
  return stored.map((p) => ({
    credentialID: p.credentialID,
    provider: providers.get(p.credentialID) ?? null,
    deviceType: p.credentialDeviceType,
    backedUp: p.credentialBackedUp,
    transports: (p.transports ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== ""),
  }));
}

/** Not signed in: a JSON 401, or, for a browser's form, the sign-in page. */
async function signInFirst(ctx: Context): Promise<ResponseInternal> {
  if (wantsJson(ctx) || ctx.req.method === "GET") return refusal(ctx, "Unauthenticated");
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  return redirectResult(pageUrl(ctx, page, { callbackUrl: await ctx.callbackUrl() }));
}

/** GET /passkeys */
export async function listPasskeysAction(ctx: Context): Promise<ResponseInternal> {
  if (!passkeysOn(ctx.config)) return refusal(ctx, "PasskeysOff");
  const ref = await identifySession(ctx);
  if (!ref) return signInFirst(ctx);
  return jsonResult({ passkeys: await passkeysOf(ctx, ref.userId) }, 200, noStore);
}

/** The credential id the body names, or `undefined`. */
function credentialOf(ctx: Context): string | undefined {
  const value = ctx.req.body?.credentialID;
  return typeof value === "string" && value !== "" && value.length <= 1024 ? value : undefined;
}

/** POST /passkeys/remove */
export async function removePasskeyAction(ctx: Context): Promise<ResponseInternal> {
  if (!passkeysOn(ctx.config)) return refusal(ctx, "PasskeysOff");
  await requireCsrf(ctx);
  const ref: SessionRef | null = await identifySession(ctx);
  if (!ref) return signInFirst(ctx);
  const can = capabilitiesOf(ctx.config);
  const { deleteAuthenticator, unlinkAccount } = can;
  if (!deleteAuthenticator || !unlinkAccount) {
    ctx.config.logger.error(
      new AuthError(
        "A passkey cannot be removed: the adapter has no deleteAuthenticator or no unlinkAccount",
      ),
    );
    return refusal(ctx, "PasskeyRemovalUnsupported");
  }
  const json = wantsJson(ctx);
  if (!(await hasFreshProof(ctx, ref))) {
    return reauthenticate(ctx, json, await ctx.callbackUrl(), {
      userId: ref.userId,
      action: REMOVE_ROUTE,
    });
  }
  const credentialID = credentialOf(ctx);
  if (!credentialID) return refusal(ctx, "InvalidPasskey");
  const [user, held] = await Promise.all([
    can.getUser?.(ref.userId),
    can.listAuthenticators?.(ref.userId),
  ]);
  // Only the user's own list is read: an unknown id and another user's get the same answer,
  // which tells nothing about anybody else's passkeys.
  const others = (held ?? []).filter((p) => p.credentialID !== credentialID);
  if (!user || !held || others.length === held.length) return refusal(ctx, "UnknownPasskey");
  if (!(await keepsAnotherWayIn(ctx, user, others))) return refusal(ctx, "LastWayIn");

  const provider = await accountProvider(ctx, user.id, credentialID);
  const deleted = await deleteAuthenticator(credentialID);
  // Removed meanwhile by another request of the user's: that one answers for it.
  if (!deleted) return refusal(ctx, "UnknownPasskey");
  // Two removals at once could each have counted the other's passkey as the way in left: the
  // check again, on what is stored now, puts this one back when nothing would be left.
  const left = (await can.listAuthenticators?.(user.id)) ?? [];
  if (!(await keepsAnotherWayIn(ctx, user, left))) {
    await (ctx.config.adapter as Required<Adapter>).createAuthenticator(deleted);
    return refusal(ctx, "LastWayIn");
  }
  if (provider) await unlinkAccount({ provider, providerAccountId: credentialID });
  await recordSecurityEvent(ctx, {
    type: PASSKEY_REMOVED_EVENT,
    userId: user.id,
    provider: provider ?? null,
    providerType: "webauthn",
  });
  await announce(ctx, "credentialsChanged", { userId: user.id, reason: "passkeyRemoved" });
  if (!json) return redirectResult(await ctx.callbackUrl());
  return jsonResult({ ...PASSKEY_REMOVED, passkeys: await passkeysOf(ctx, user.id) }, 200, noStore);
}
