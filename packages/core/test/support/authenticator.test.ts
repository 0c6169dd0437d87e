import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { cborEncode, SoftAuthenticator } from "./authenticator.js";

const origin = "http://localhost:3000";
const rpID = "localhost";

async function registered(authenticator = new SoftAuthenticator()) {
  const options = await generateRegistrationOptions({
    rpName: "Test",
    rpID,
    userName: "a@example.com",
  });
  const response = authenticator.register(options, origin);
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
  });
  return { authenticator, options, response, verification };
}

describe("cborEncode", () => {
  it("encodes integers, strings, arrays and maps", () => {
    expect(cborEncode(0).toString("hex")).toBe("00");
    expect(cborEncode(23).toString("hex")).toBe("17");
    expect(cborEncode(24).toString("hex")).toBe("1818");
    expect(cborEncode(1000).toString("hex")).toBe("1903e8");
    expect(cborEncode(1000000).toString("hex")).toBe("1a000f4240");
    expect(cborEncode(-1).toString("hex")).toBe("20");
    expect(cborEncode(-7).toString("hex")).toBe("26");
    expect(cborEncode(-1000).toString("hex")).toBe("3903e7");
    expect(cborEncode("a").toString("hex")).toBe("6161");
    expect(cborEncode(new Uint8Array([1, 2])).toString("hex")).toBe("420102");
    expect(cborEncode([1, [2, 3]]).toString("hex")).toBe("8201820203");
    expect(cborEncode({ a: 1 }).toString("hex")).toBe("a1616101");
    expect(cborEncode(new Map([[-1, 1]])).toString("hex")).toBe("a12001");
  });
});

describe("SoftAuthenticator", () => {
  it("registers and authenticates against @simplewebauthn/server", async () => {
    const { authenticator, options, response, verification } = await registered();
    expect(verification.verified).toBe(true);
    const info = verification.registrationInfo!;
    expect(info.credential.id).toBe(response.id);
    expect(info.fmt).toBe("none");
    expect(info.userVerified).toBe(true);
    expect(info.credentialBackedUp).toBe(false);
    expect(info.credentialDeviceType).toBe("singleDevice");
    expect(authenticator.credentials).toEqual([
      { id: response.id, rpId: rpID, userHandle: options.user.id, counter: 0 },
    ]);

    const authOptions = await generateAuthenticationOptions({
      rpID,
      allowCredentials: [{ id: response.id }],
    });
    const assertion = authenticator.authenticate(authOptions, origin);
    expect(assertion.response.userHandle).toBe(options.user.id);
    const result = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: authOptions.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: response.id, publicKey: info.credential.publicKey, counter: 0 },
    });
    expect(result.verified).toBe(true);
    expect(result.authenticationInfo.newCounter).toBe(1);
    expect(authenticator.credentials[0]?.counter).toBe(1);
  });

  it("answers discoverable (empty allowCredentials) requests with the user handle", async () => {
    const { authenticator, options, verification } = await registered();
    const authOptions = await generateAuthenticationOptions({ rpID });
    const assertion = authenticator.authenticate(authOptions, origin);
    expect(assertion.response.userHandle).toBe(options.user.id);
    const result = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: authOptions.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { ...verification.registrationInfo!.credential, counter: 0 },
    });
    expect(result.verified).toBe(true);
  });

  it("rejects a tampered signature", async () => {
    const { authenticator, response, verification } = await registered();
    const authOptions = await generateAuthenticationOptions({ rpID });
    const assertion = authenticator.authenticate(authOptions, origin);
    const sig = Buffer.from(assertion.response.signature, "base64url");
    sig[sig.length - 1]! ^= 0x01;
    assertion.response.signature = sig.toString("base64url");
    const outcome = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: authOptions.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: response.id,
        publicKey: verification.registrationInfo!.credential.publicKey,
        counter: 0,
      },
    }).then(
      (r) => r.verified,
      () => false,
    );
    expect(outcome).toBe(false);
  });

  it("is rejected for a wrong origin", async () => {
    const { authenticator, response, verification } = await registered();
    const authOptions = await generateAuthenticationOptions({ rpID });
    const assertion = authenticator.authenticate(authOptions, "http://evil.example");
    await expect(
      verifyAuthenticationResponse({
        response: assertion,
        expectedChallenge: authOptions.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: {
          id: response.id,
          publicKey: verification.registrationInfo!.credential.publicKey,
          counter: 0,
        },
      }),
    ).rejects.toThrow(/origin/i);
  });

  it("honours flag, counter and exclusion options", async () => {
    const authenticator = new SoftAuthenticator({
      backupEligible: true,
      backedUp: true,
      zeroCounter: true,
      transports: ["internal", "hybrid"],
      aaguid: new Uint8Array(16).fill(0xab),
    });
    const { options, response, verification } = await registered(authenticator);
    const info = verification.registrationInfo!;
    expect(info.credentialDeviceType).toBe("multiDevice");
    expect(info.credentialBackedUp).toBe(true);
    expect(info.aaguid).toBe("abababab-abab-abab-abab-abababababab");
    expect(response.response.transports).toEqual(["internal", "hybrid"]);

    const authOptions = await generateAuthenticationOptions({ rpID });
    const result = await verifyAuthenticationResponse({
      response: authenticator.authenticate(authOptions, origin),
      expectedChallenge: authOptions.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { ...info.credential, counter: 0 },
    });
    expect(result.verified).toBe(true);
    expect(result.authenticationInfo.newCounter).toBe(0);

    const again = await generateRegistrationOptions({
      rpName: "Test",
      rpID,
      userName: "a@example.com",
      excludeCredentials: [{ id: response.id }],
    });
    expect(() => authenticator.register(again, origin)).toThrow(
      expect.objectContaining({ name: "InvalidStateError" }),
    );
    expect(() =>
      authenticator.authenticate({ challenge: options.challenge, rpId: "other.test" }, origin),
    ).toThrow(expect.objectContaining({ name: "NotAllowedError" }));
  });
});
