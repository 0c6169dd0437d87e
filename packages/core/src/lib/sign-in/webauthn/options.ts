/**
 * GET /webauthn-options/<provider>?action=: the options for the browser's WebAuthn call, and a
 * sealed challenge cookie that the callback checks. Signed out, every request gets the same
 * answer: no address is looked up and no credential listed (docs/security.md, "Passkeys").
 */

import { sealCheck } from "../../checks.js";
import type { Context } from "../../context.js";
import { InvalidProvider } from "../../errors.js";
import { limitClient } from "../../features/rate-limit/index.js";
import { jsonResult, noStore } from "../../response.js";
import { signedInUser } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter, AdapterUser } from "../../types/models.js";
import {
  type Ceremony,
  type ChallengeState,
  DEFAULT_WEBAUTHN_TIMEOUT,
  decideCeremony,
  relyingParty,
  simpleWebAuthn,
  toBase64url,
  type WebAuthnInternalProvider,
} from "./ceremony.js";

/** The signed-in user's own credentials; nobody else's are ever listed. */
async function ownCredentials(adapter: Required<Adapter>, user: AdapterUser | null) {
  if (!user) return [];
  const authenticators = await adapter.listAuthenticatorsByUserId(user.id);
  return authenticators.map((a) => ({
    id: toBase64url(a.credentialID),
    transports: a.transports ? (a.transports.split(",") as AuthenticatorTransport[]) : undefined,
  }));
}

export async function webauthnOptions(ctx: Context): Promise<ResponseInternal> {
  const found = ctx.requireProvider();
  if (found.type !== "webauthn")
    throw new InvalidProvider("This provider is not a WebAuthn provider");
  const provider = found as WebAuthnInternalProvider;
  const requested = ctx.req.query.action;
  if (requested !== undefined && requested !== "authenticate" && requested !== "register") {
    return jsonResult({ error: "Invalid action" }, 400);
  }
  await limitClient(ctx, "webauthn");
  const current = await signedInUser(ctx);
  const ceremony = decideCeremony(requested as Ceremony | undefined, current !== null);
  if (!ceremony) return jsonResult({ error: "Invalid request" }, 400);

  const adapter = ctx.config.adapter as Required<Adapter>;
  const swa = await simpleWebAuthn();
  const rp = relyingParty(ctx, provider);
  const timeout = provider.timeout ?? DEFAULT_WEBAUTHN_TIMEOUT;
  const own = await ownCredentials(adapter, current);
  let options: { challenge: string };
  if (ceremony === "authenticate") {
    options = await swa.generateAuthenticationOptions({
      rpID: rp.id,
      timeout,
      ...(own.length ? { allowCredentials: own } : {}),
      ...provider.authenticationOptions,
    });
  } else {
    // The label the browser shows for the passkey. A passkey-only account has no address, so
    // it is named after the site rather than after anything the request says.
    const label = current?.email || current?.name || rp.name;
    options = await swa.generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userID: crypto.getRandomValues(new Uint8Array(32)),
      userName: label,
      userDisplayName: current?.name || label,
      timeout,
      excludeCredentials: own,
      ...provider.registrationOptions,
    });
  }
  const challenge: ChallengeState = {
    challenge: options.challenge,
    ...(ceremony === "register" ? { register: { userId: current?.id ?? null } } : {}),
  };
  const result = jsonResult({ action: ceremony, options }, 200, noStore);
  result.cookies = [
    await sealCheck(ctx, "webauthn", JSON.stringify(challenge), provider.id, false),
  ];
  return result;
}
