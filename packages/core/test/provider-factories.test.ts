/**
 * The provider factories: their defaults at run time, and (checked by `tsc` in CI, through the
 * `@ts-expect-error` lines) that their options are typed rather than open records.
 */
import Credentials from "@gatehousejs/core/providers/credentials";
import Email from "@gatehousejs/core/providers/email";
import OIDC from "@gatehousejs/core/providers/oidc";
import Passkey from "@gatehousejs/core/providers/passkey";
import TikTok, {
  DEFAULT_TIKTOK_FIELDS,
  DEFAULT_TIKTOK_SCOPE,
} from "@gatehousejs/core/providers/tiktok";
import WebAuthn from "@gatehousejs/core/providers/webauthn";
import { describe, expect, test } from "vitest";

describe("provider factories", () => {
  test("each sets its type and defaults, and the options override them", () => {
    expect(OIDC({ issuer: "https://idp.example" })).toMatchObject({ id: "oidc", type: "oidc" });
    expect(OIDC({ id: "corp", name: "Corp" })).toMatchObject({ id: "corp", name: "Corp" });
    expect(Email({ sendVerificationRequest() {} })).toMatchObject({
      id: "email",
      type: "email",
      maxAge: 86400,
    });
    expect(Credentials({ authorize: () => null })).toMatchObject({
      id: "credentials",
      type: "credentials",
    });
    expect(WebAuthn()).toMatchObject({
      id: "webauthn",
      type: "webauthn",
      enableConditionalUI: false,
      timeout: 300_000,
      // A passkey names its user: the sign-in page asks for no address it would ignore.
      formFields: {},
    });
    expect(Passkey()).toMatchObject({
      id: "passkey",
      registrationOptions: {
        authenticatorSelection: { residentKey: "required", userVerification: "required" },
      },
      authenticationOptions: { userVerification: "required" },
    });
    const tiktok = TikTok();
    expect(tiktok).toMatchObject({
      id: "tiktok",
      type: "oauth",
      client: { token_endpoint_auth_method: "client_secret_post" },
    });
    expect(tiktok.authorization).toMatchObject({ params: { scope: DEFAULT_TIKTOK_SCOPE } });
    expect(tiktok.userinfo).toMatchObject({ params: { fields: DEFAULT_TIKTOK_FIELDS.join(",") } });
    // A new URL keeps the default parameters (client_key, scope).
    const pointed = TikTok({ authorization: "http://127.0.0.1:1/v2/auth/authorize/" });
    expect(pointed.authorization).toMatchObject({
      url: "http://127.0.0.1:1/v2/auth/authorize/",
      params: { scope: DEFAULT_TIKTOK_SCOPE, client_key: expect.any(Function) },
    });
  });
});

/** Never called: the lines below only have to fail type-checking. */
export function typedOptions() {
  // @ts-expect-error issuer is a string
  OIDC({ issuer: 42 });
  // @ts-expect-error checks are a closed union
  OIDC({ checks: ["bogus"] });
  // @ts-expect-error profile is a function
  TikTok({ profile: 3 });
  // @ts-expect-error maxAge is a number
  Email({ sendVerificationRequest() {}, maxAge: "1d" });
  // @ts-expect-error authorize is required
  Credentials({});
}
