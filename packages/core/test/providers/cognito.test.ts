/**
 * Amazon Cognito end to end through `Auth()` against an imitation of a user pool: the issuer
 * `https://cognito-idp.eu-west-1.amazonaws.com/<poolId>` (discovery, JWKS) and the pool's
 * domain `https://<domain>.auth.eu-west-1.amazoncognito.com` (`/oauth2/authorize`, `/oauth2/token`
 * with HTTP Basic client authentication, `/oauth2/userInfo`).
 */
import Cognito, {
  type CognitoOptions,
  type CognitoProfile,
} from "@gatehousejs/core/providers/cognito";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import * as fixtures from "./fixtures/cognito.js";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";

const ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123";
const DOMAIN = "https://gatehouse-test.auth.eu-west-1.amazoncognito.com";

issuerProviderSuite({
  id: "cognito",
  factory: (options) => Cognito(options as CognitoOptions) as unknown as OAuthConfig,
  issuer: ISSUER,
  endpoints: {
    authorize: `${DOMAIN}/oauth2/authorize`,
    token: `${DOMAIN}/oauth2/token`,
    userinfo: `${DOMAIN}/oauth2/userInfo`,
    jwks: `${ISSUER}/.well-known/jwks.json`,
  },
  auth: "client_secret_basic",
  profileIn: "id_token",
  fixtures: {
    ...fixtures,
    fullUser: {
      id: "94a8e4d8-2001-70c8-5b2e-3c1d0f9e8a7b",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: "https://assets.example.com/avatars/jdoe.png",
    },
  },
});

describe("cognito specifics", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Cognito).parameter(0).toEqualTypeOf<CognitoOptions | undefined>();
    expectTypeOf(Cognito().profile!).parameter(0).toEqualTypeOf<CognitoProfile>();
    expectTypeOf<CognitoProfile["cognito:groups"]>().toEqualTypeOf<string[] | undefined>();
  });

  test("without name attributes the pool's user name is the name", () => {
    expect(Cognito().profile!(fixtures.noPicture, {})).toEqual({
      id: "e6d5c4b3-2a1f-4e0d-8c9b-7a6f5e4d3c2b",
      name: "jbloggs",
      email: "jo@example.com",
      image: null,
    });
  });
});
