/**
 * Okta end to end through `Auth()` against an imitation of an org's custom authorization server
 * (`https://gatehouse-test.okta.com/oauth2/default`): discovery, `/v1/authorize`, `/v1/token`
 * with HTTP Basic client authentication, and ID token claims.
 */
import Okta, { type OktaOptions, type OktaProfile } from "@gatehousejs/core/providers/okta";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";
import * as fixtures from "./fixtures/okta.js";

const ISSUER = "https://gatehouse-test.okta.com/oauth2/default";

issuerProviderSuite({
  id: "okta",
  factory: (options) => Okta(options as OktaOptions) as unknown as OAuthConfig,
  issuer: ISSUER,
  endpoints: {
    authorize: `${ISSUER}/v1/authorize`,
    token: `${ISSUER}/v1/token`,
    userinfo: `${ISSUER}/v1/userinfo`,
    jwks: `${ISSUER}/v1/keys`,
  },
  auth: "client_secret_basic",
  profileIn: "id_token",
  fixtures: {
    ...fixtures,
    fullUser: {
      id: "00u1a2b3c4d5e6f7g8h9",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    },
  },
});

describe("okta specifics", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Okta).parameter(0).toEqualTypeOf<OktaOptions | undefined>();
    expectTypeOf(Okta().profile!).parameter(0).toEqualTypeOf<OktaProfile>();
    // @ts-expect-error: checks are a list of check names
    Okta({ checks: "pkce" });
  });

  test("preferred_username (the Okta login) is a name, never an email", () => {
    expect(Okta().profile!(fixtures.noEmail, {})).toEqual({
      id: "00u9z8y7x6w5v4u3t2s1",
      name: "Build Robot",
      email: null,
      image: null,
    });
    expect(Okta().profile!(fixtures.noPicture, {})).toMatchObject({ name: "jdoe" });
  });
});
