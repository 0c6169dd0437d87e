/**
 * GET /webauthn-options/<provider>?action=&email=: the options for the browser's WebAuthn call,
 * and a sealed challenge cookie that the callback checks.
 */

import { sealCheck } from "../checks.js";
import type { Context } from "../context.js";
import { InvalidProvider } from "../errors.js";
import { jsonResult, noStore } from "../response.js";
import type { ResponseInternal } from "../types/config.js";
import type { Adapter } from "../types/models.js";
import {
  type Ceremony,
  ceremonyUser,
  DEFAULT_WEBAUTHN_TIMEOUT,
  decideCeremony,
  relyingParty,
  simpleWebAuthn,
  toBase64url,
  type WebAuthnInternalProvider,
} from "../webauthn/ceremony.js";

async function existingCredentials(adapter: Required<Adapter>, userId: string | undefined) {
  if (!userId) return [];
  const authenticators = await adapter.listAuthenticatorsByUserId(userId);
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
  const { loggedIn, info } = await ceremonyUser(ctx, provider);
  const ceremony = decideCeremony(requested as Ceremony | undefined, loggedIn, info);
  if (!ceremony) return jsonResult({ error: "Invalid request" }, 400);

  const adapter = ctx.config.adapter as Required<Adapter>;
  const swa = await simpleWebAuthn();
  const rp = relyingParty(ctx, provider);
  const timeout = provider.timeout ?? DEFAULT_WEBAUTHN_TIMEOUT;
  const known = info?.exists ? await existingCredentials(adapter, info.user.id) : [];
  let options: { challenge: string };
  if (ceremony === "authenticate") {
    options = await swa.generateAuthenticationOptions({
      rpID: rp.id,
      timeout,
      ...(known.length ? { allowCredentials: known } : {}),
      ...provider.authenticationOptions,
    });
  } else {
    const user = info!.user;
    options = await swa.generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userID: crypto.getRandomValues(new Uint8Array(32)),
      userName: user.email,
      userDisplayName: user.name ?? user.email,
      timeout,
      excludeCredentials: known,
      ...provider.registrationOptions,
    });
  }
  const challenge = {
    challenge: options.challenge,
    ...(ceremony === "register"
      ? { user: { email: info!.user.email, name: info!.user.name ?? null } }
      : {}),
  };
  const result = jsonResult({ action: ceremony, options }, 200, noStore);
  result.cookies = [
    await sealCheck(ctx, "webauthn", JSON.stringify(challenge), provider.id, false),
  ];
  return result;
}
