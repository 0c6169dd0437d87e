/**
 * A software WebAuthn authenticator plus the browser glue around it, for tests that drive
 * passkey registration and sign-in end to end without a browser.
 *
 * `register()` answers `PublicKeyCredentialCreationOptionsJSON` the way
 * `navigator.credentials.create()` + `@simplewebauthn/browser`'s `startRegistration()` would
 * ("none" attestation, ES256 / P-256), and `authenticate()` answers
 * `PublicKeyCredentialRequestOptionsJSON` the way `startAuthentication()` would. Only
 * `node:crypto` is used; the CBOR needed for COSE keys and attestation objects is encoded here.
 */
import {
  createHash,
  sign as cryptoSign,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

// ---------------------------------------------------------------------------------------------
// Tiny CBOR encoder (RFC 8949): unsigned/negative integers, byte strings, text strings, arrays
// and maps with integer or text keys. Map entries are written in the order given.
// ---------------------------------------------------------------------------------------------

/** A value the encoder can write. `Map` keeps integer keys (COSE); plain objects give text keys. */
export type CborValue =
  | number
  | bigint
  | string
  | Uint8Array
  | CborValue[]
  | Map<number | string, CborValue>
  | { [key: string]: CborValue };

function cborHead(major: number, value: number | bigint): Buffer {
  const n = BigInt(value);
  if (n < 0n) throw new RangeError("CBOR head argument must be non-negative");
  const m = major << 5;
  if (n < 24n) return Buffer.from([m | Number(n)]);
  if (n < 0x100n) return Buffer.from([m | 24, Number(n)]);
  if (n < 0x10000n) {
    const b = Buffer.alloc(3);
    b[0] = m | 25;
    b.writeUInt16BE(Number(n), 1);
    return b;
  }
  if (n < 0x100000000n) {
    const b = Buffer.alloc(5);
    b[0] = m | 26;
    b.writeUInt32BE(Number(n), 1);
    return b;
  }
  if (n < 0x10000000000000000n) {
    const b = Buffer.alloc(9);
    b[0] = m | 27;
    b.writeBigUInt64BE(n, 1);
    return b;
  }
  throw new RangeError("CBOR integer out of range");
}

function cborInt(value: number | bigint): Buffer {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new TypeError(`CBOR encoder only supports integers, got ${value}`);
  }
  const n = BigInt(value);
  return n >= 0n ? cborHead(0, n) : cborHead(1, -1n - n);
}

/** Encodes `value` as CBOR. */
export function cborEncode(value: CborValue): Buffer {
  if (typeof value === "number" || typeof value === "bigint") return cborInt(value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) {
    return Buffer.concat([cborHead(2, value.length), value]);
  }
  if (Array.isArray(value)) {
    return Buffer.concat([cborHead(4, value.length), ...value.map(cborEncode)]);
  }
  const entries: Array<[number | string, CborValue]> =
    value instanceof Map ? [...value.entries()] : Object.entries(value);
  const parts: Buffer[] = [cborHead(5, entries.length)];
  for (const [k, v] of entries) {
    parts.push(cborEncode(k), cborEncode(v));
  }
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// Authenticator
// ---------------------------------------------------------------------------------------------

export interface SoftAuthenticatorOptions {
  /** 16-byte AAGUID written into attested credential data. Default: all zeros. */
  aaguid?: Uint8Array;
  /** Sets the BE (backup eligible, 0x08) flag. Default false. */
  backupEligible?: boolean;
  /** Sets the BS (backed up, 0x10) flag. Default false. */
  backedUp?: boolean;
  /** Reported in `response.transports` on registration. Default `["internal"]`. */
  transports?: readonly string[];
  /** Sets the UV (user verified, 0x04) flag. Default true. (UP is always set.) */
  userVerified?: boolean;
  /** Never increment the signature counter: every assertion carries signCount 0. Default false. */
  zeroCounter?: boolean;
  /**
   * Reject, like a browser, an origin whose host is not the RP ID or a subdomain of it.
   * Default false, so tests can hand the server a mismatched origin on purpose.
   */
  enforceOrigin?: boolean;
}

/** Public view of a stored credential. */
export interface SoftCredentialInfo {
  /** Credential ID, base64url. */
  id: string;
  rpId: string;
  /** `user.id` from the creation options (base64url, exactly as given). */
  userHandle: string;
  /** Current signature counter (the value the last assertion carried). */
  counter: number;
}

interface StoredCredential extends SoftCredentialInfo {
  idBytes: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** Error with a DOMException-like `name`, as `navigator.credentials` would reject with. */
export class WebAuthnError extends Error {
  constructor(
    override readonly name:
      | "NotAllowedError"
      | "InvalidStateError"
      | "NotSupportedError"
      | "SecurityError",
    message: string,
  ) {
    super(message);
  }
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string): Buffer => createHash("sha256").update(data).digest();

export class SoftAuthenticator {
  readonly #aaguid: Buffer;
  readonly #options: SoftAuthenticatorOptions;
  readonly #credentials: StoredCredential[] = [];

  constructor(options: SoftAuthenticatorOptions = {}) {
    const aaguid = options.aaguid ?? new Uint8Array(16);
    if (aaguid.length !== 16) throw new RangeError("aaguid must be 16 bytes");
    this.#aaguid = Buffer.from(aaguid);
    this.#options = options;
  }

  /** Snapshot of the stored credentials (id, rpId, userHandle, current counter). */
  get credentials(): SoftCredentialInfo[] {
    return this.#credentials.map(({ id, rpId, userHandle, counter }) => ({
      id,
      rpId,
      userHandle,
      counter,
    }));
  }

  /**
   * Answers creation options like `navigator.credentials.create()` + `startRegistration()`.
   * `pick.credentialId` (base64url) forces the new credential's id, as a hostile client could.
   */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    pick: { credentialId?: string } = {},
  ): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    this.#checkOrigin(rpId, origin);
    if (!options.pubKeyCredParams.some((p) => p.type === "public-key" && p.alg === -7)) {
      throw new WebAuthnError("NotSupportedError", "ES256 (-7) not offered in pubKeyCredParams");
    }
    for (const excluded of options.excludeCredentials ?? []) {
      if (this.#credentials.some((c) => c.rpId === rpId && c.id === excluded.id)) {
        throw new WebAuthnError("InvalidStateError", "a credential in excludeCredentials exists");
      }
    }

    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    if (!jwk.x || !jwk.y) throw new Error("unexpected JWK export");
    const coseKey = cborEncode(
      new Map<number, CborValue>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x, "base64url")],
        [-3, Buffer.from(jwk.y, "base64url")],
      ]),
    );
    const idBytes =
      pick.credentialId === undefined
        ? randomBytes(32)
        : Buffer.from(pick.credentialId, "base64url");
    const credIdLen = Buffer.alloc(2);
    credIdLen.writeUInt16BE(idBytes.length);
    const attestedCredentialData = Buffer.concat([this.#aaguid, credIdLen, idBytes, coseKey]);
    const authData = this.#authData(rpId, 0, FLAG_AT, attestedCredentialData);

    const credential: StoredCredential = {
      id: b64url(idBytes),
      rpId,
      userHandle: options.user.id,
      counter: 0,
      idBytes,
      privateKey,
      publicKey,
    };
    this.#credentials.push(credential);

    const clientDataJSON = this.#clientData("webauthn.create", options.challenge, origin);
    const attestationObject = cborEncode({ fmt: "none", attStmt: {}, authData });
    const spki = publicKey.export({ format: "der", type: "spki" });
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authData),
        transports: [
          ...(this.#options.transports ?? ["internal"]),
        ] as AuthenticatorTransportFuture[],
        publicKeyAlgorithm: -7,
        publicKey: b64url(spki),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /**
   * Answers request options like `navigator.credentials.get()` + `startAuthentication()`.
   * Uses a credential listed in `allowCredentials`, or (list empty/absent) the most recently
   * registered credential for the RP ID; `pick.credentialId` selects one explicitly.
   */
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
    pick: { credentialId?: string } = {},
  ): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(origin).hostname;
    this.#checkOrigin(rpId, origin);
    const allowed = options.allowCredentials ?? [];
    const candidates = this.#credentials.filter(
      (c) =>
        c.rpId === rpId &&
        (allowed.length === 0 || allowed.some((a) => a.id === c.id)) &&
        (pick.credentialId === undefined || pick.credentialId === c.id),
    );
    const credential = candidates.at(-1);
    if (!credential) {
      throw new WebAuthnError("NotAllowedError", `no matching credential for RP ID ${rpId}`);
    }

    if (!this.#options.zeroCounter) credential.counter += 1;
    const authData = this.#authData(rpId, credential.counter, 0);
    const clientDataJSON = this.#clientData("webauthn.get", options.challenge, origin);
    const signature = cryptoSign(
      "sha256",
      Buffer.concat([authData, sha256(clientDataJSON)]),
      credential.privateKey,
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Removes a stored credential (e.g. to simulate a lost device). Returns whether it existed. */
  forget(id: string): boolean {
    const index = this.#credentials.findIndex((c) => c.id === id);
    if (index < 0) return false;
    this.#credentials.splice(index, 1);
    return true;
  }

  #authData(rpId: string, signCount: number, extraFlags: number, tail?: Buffer): Buffer {
    let flags = FLAG_UP | extraFlags;
    if (this.#options.userVerified !== false) flags |= FLAG_UV;
    if (this.#options.backupEligible) flags |= FLAG_BE;
    if (this.#options.backedUp) flags |= FLAG_BS;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(signCount >>> 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(tail ? [tail] : [])]);
  }

  #clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8");
  }

  #checkOrigin(rpId: string, origin: string): void {
    if (!this.#options.enforceOrigin) return;
    const host = new URL(origin).hostname;
    if (host !== rpId && !host.endsWith(`.${rpId}`)) {
      throw new WebAuthnError("SecurityError", `origin ${origin} is not valid for RP ID ${rpId}`);
    }
  }
}
