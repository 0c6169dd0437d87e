/**
 * The browser's side of a passkey ceremony, for `withPasskeys()` of `@gatehousejs/nextjs/client`:
 * the server's JSON options turned into `navigator.credentials` calls, and the credential turned
 * back into JSON (binary fields as base64url). What `@simplewebauthn/browser` does, kept to what
 * the demo needs (a real app may install that package and pass `() => import(...)` instead).
 */

type Json = Record<string, unknown>;
type Descriptor = { id: string } & Json;

function decode(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

function encode(buffer: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list: unknown) =>
  ((list as Descriptor[] | undefined) ?? []).map((item) => ({ ...item, id: decode(item.id) }));

/** The credential as the auth route reads it (the shape of WebAuthn Level 3's `toJSON()`). */
function asJson(credential: PublicKeyCredential): Json {
  const answer = credential.response;
  const response: Json = { clientDataJSON: encode(answer.clientDataJSON) };
  if (answer instanceof AuthenticatorAttestationResponse) {
    response.attestationObject = encode(answer.attestationObject);
    response.transports = answer.getTransports?.() ?? [];
  } else {
    const assertion = answer as AuthenticatorAssertionResponse;
    response.authenticatorData = encode(assertion.authenticatorData);
    response.signature = encode(assertion.signature);
    if (assertion.userHandle) response.userHandle = encode(assertion.userHandle);
  }
  return {
    id: credential.id,
    rawId: encode(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

/** Creates a passkey from the server's registration options. */
export async function startRegistration({ optionsJSON }: { optionsJSON: never }): Promise<Json> {
  const options = optionsJSON as Json & { challenge: string; user: Json & { id: string } };
  const credential = await navigator.credentials.create({
    publicKey: {
      ...(options as object),
      challenge: decode(options.challenge),
      user: { ...options.user, id: decode(options.user.id) },
      excludeCredentials: withIds(options.excludeCredentials),
    } as PublicKeyCredentialCreationOptions,
  });
  if (!credential) throw new Error("No passkey was created");
  return asJson(credential as PublicKeyCredential);
}

/** Signs with a passkey, from the server's authentication options. */
export async function startAuthentication({ optionsJSON }: { optionsJSON: never }): Promise<Json> {
  const options = optionsJSON as Json & { challenge: string };
  const credential = await navigator.credentials.get({
    publicKey: {
      ...(options as object),
      challenge: decode(options.challenge),
      allowCredentials: withIds(options.allowCredentials),
    } as PublicKeyCredentialRequestOptions,
  });
  if (!credential) throw new Error("No passkey was used");
  return asJson(credential as PublicKeyCredential);
}
