/**
 * POST /callback/<webauthn provider>, form fields `action` and `data` (the browser's response as
 * JSON): verify it against the challenge cookie, then sign in (authenticate) or store the new
 * passkey (register): on the signed-in user's account, or on a new user without an email.
 */

import { MethodNotAllowed } from "../../actions/method.js";
import { useCheck } from "../../checks.js";
import type { Context } from "../../context.js";
import { AuthError, InvalidCheck, WebAuthnVerificationError } from "../../errors.js";
import { signedInUser } from "../../session/index.js";
import { completeSignIn, type SignInRequest } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter, AdapterAccount, AdapterUser } from "../../types/models.js";
import {
  type ChallengeState,
  publicKeyFromStore,
  publicKeyToStore,
  relyingParty,
  simpleWebAuthn,
  toBase64,
  type WebAuthnInternalProvider,
} from "./ceremony.js";
import { refuseTakenCredential, storePasskey } from "./register.js";

function parseData(raw: unknown): { id: string } & Record<string, unknown> {
  if (typeof raw !== "string")
    throw new WebAuthnVerificationError("The WebAuthn response is missing");
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new WebAuthnVerificationError("The WebAuthn response is not JSON");
  }
  if (
    typeof data !== "object" ||
    data === null ||
    typeof (data as { id?: unknown }).id !== "string"
  ) {
    throw new WebAuthnVerificationError("The WebAuthn response has no credential id");
  }
  return data as { id: string } & Record<string, unknown>;
}

async function readChallenge(
  ctx: Context,
  provider: WebAuthnInternalProvider,
): Promise<ChallengeState> {
  const value = await useCheck(ctx, "webauthn", provider.id);
  try {
    const parsed = JSON.parse(value) as ChallengeState;
    if (typeof parsed.challenge === "string") return parsed;
  } catch {
    // Fall through: a sealed cookie with a broken payload is a failed check like any other.
  }
  throw new InvalidCheck("The WebAuthn challenge cookie holds no challenge");
}

/** Runs a verification, turning every failure into a client-safe `WebAuthnVerificationError`. */
async function verified<T extends { verified: boolean }>(run: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    throw new WebAuthnVerificationError("The WebAuthn response did not verify", { cause });
  }
  if (!result.verified) throw new WebAuthnVerificationError("The WebAuthn response did not verify");
  return result;
}

async function authenticate(
  ctx: Context,
  provider: WebAuthnInternalProvider,
  data: { id: string } & Record<string, unknown>,
  challenge: ChallengeState,
): Promise<{ user: AdapterUser; account: AdapterAccount; userVerified: boolean }> {
  const adapter = ctx.config.adapter as Required<Adapter>;
  const swa = await simpleWebAuthn();
  const rp = relyingParty(ctx, provider);
  const credentialID = toBase64(data.id);
  const authenticator = await adapter.getAuthenticator(credentialID);
  if (!authenticator) throw new WebAuthnVerificationError("No passkey has this credential id");
  const result = await verified(() =>
    swa.verifyAuthenticationResponse({
      response: data as unknown as Parameters<
        typeof swa.verifyAuthenticationResponse
      >[0]["response"],
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: data.id,
        publicKey: publicKeyFromStore(authenticator.credentialPublicKey),
        counter: authenticator.counter,
      },
    }),
  );
  await adapter.updateAuthenticatorCounter(credentialID, result.authenticationInfo.newCounter);
  const account = await adapter.getAccount(authenticator.providerAccountId, provider.id);
  if (!account) throw new WebAuthnVerificationError("The passkey's account is gone");
  const user = await adapter.getUser(account.userId);
  if (!user) throw new WebAuthnVerificationError("The passkey's user is gone");
  return { user, account, userVerified: result.authenticationInfo.userVerified };
}

/**
 * What a passkey proves (RFC 8176 `amr`): a key held in hardware (`hwk`), and, when the
 * authenticator checked the user's PIN or biometric, the user too (`user`): two factors.
 */
const passkeyFactors = (userVerified: boolean) => (userVerified ? ["hwk", "user"] : ["hwk"]);

async function register(
  ctx: Context,
  provider: WebAuthnInternalProvider,
  data: { id: string } & Record<string, unknown>,
  challenge: ChallengeState,
): Promise<Pick<SignInRequest, "gate" | "settle" | "factors">> {
  const intent = challenge.register;
  if (!intent) throw new InvalidCheck("The challenge was not issued for a registration");
  // The passkey joins the account the options were issued for, and no other.
  const current = await signedInUser(ctx);
  if ((current?.id ?? null) !== intent.userId) {
    throw new WebAuthnVerificationError("The session changed since the registration began");
  }
  const swa = await simpleWebAuthn();
  const rp = relyingParty(ctx, provider);
  const result = await verified(() =>
    swa.verifyRegistrationResponse({
      response: data as unknown as Parameters<typeof swa.verifyRegistrationResponse>[0]["response"],
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
    }),
  );
  const info = result.registrationInfo;
  if (!info) throw new WebAuthnVerificationError("The registration carried no credential");
  const credentialID = toBase64(info.credential.id);
  await refuseTakenCredential(ctx, provider.id, credentialID);
  const account = {
    providerAccountId: credentialID,
    provider: provider.id,
    type: "webauthn" as const,
  };
  return {
    factors: passkeyFactors(info.userVerified),
    gate: { user: current ?? { email: null, name: null, image: null }, account },
    settle: () =>
      storePasskey(ctx, current, account, {
        credentialID,
        credentialPublicKey: publicKeyToStore(info.credential.publicKey),
        counter: info.credential.counter,
        credentialBackedUp: info.credentialBackedUp,
        credentialDeviceType: info.credentialDeviceType,
        transports: info.credential.transports?.join(",") ?? null,
        providerAccountId: credentialID,
      }),
  };
}

export async function webauthnCallback(
  ctx: Context,
  provider: WebAuthnInternalProvider,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") throw new MethodNotAllowed("POST");
  const callbackUrl = await ctx.callbackUrl();
  const action = ctx.req.body?.action;
  if (action !== "authenticate" && action !== "register") {
    throw new WebAuthnVerificationError("The WebAuthn action must be authenticate or register");
  }
  const data = parseData(ctx.req.body?.data);
  const challenge = await readChallenge(ctx, provider);

  if (action === "authenticate") {
    const { user, account, userVerified } = await authenticate(ctx, provider, data, challenge);
    return completeSignIn(ctx, {
      provider,
      callbackUrl,
      factors: passkeyFactors(userVerified),
      gate: { user, account },
      settle: () => ({ user, account, isNewUser: false }),
    });
  }
  const registration = await register(ctx, provider, data, challenge);
  return completeSignIn(ctx, { provider, callbackUrl, ...registration });
}
