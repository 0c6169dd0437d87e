/**
 * Keycloak end to end through `Auth()` against an imitation of a realm
 * (`https://sso.example.com/realms/staff`): discovery, `protocol/openid-connect/auth`, `/token`
 * with HTTP Basic client authentication, and ID token claims.
 */
import Keycloak, {
  type KeycloakOptions,
  type KeycloakProfile,
} from "@gatehousejs/core/providers/keycloak";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import { expectFailedSignIn, signIn } from "../support/provider-flow.js";
import * as fixtures from "./fixtures/keycloak.js";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";

const REALM = "https://sso.example.com/realms/staff";
const OIDC = `${REALM}/protocol/openid-connect`;

const suite = issuerProviderSuite({
  id: "keycloak",
  factory: (options) => Keycloak(options as KeycloakOptions) as unknown as OAuthConfig,
  issuer: REALM,
  endpoints: {
    authorize: `${OIDC}/auth`,
    token: `${OIDC}/token`,
    userinfo: `${OIDC}/userinfo`,
    jwks: `${OIDC}/certs`,
  },
  auth: "client_secret_basic",
  profileIn: "id_token",
  // Keycloak adds `iss` to the authorization response and advertises it.
  issOnCallback: true,
  fixtures: {
    ...fixtures,
    fullUser: {
      id: "f3a1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: "https://sso.example.com/avatars/jdoe.png",
    },
  },
});

describe("keycloak specifics", () => {
  test("the callback's iss is checked against the realm: another realm's is refused", async () => {
    const idp = suite.imitation();
    const { config, logger } = suite.setup(suite.provider());
    const result = await signIn(config, "keycloak", idp, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        expect(url.searchParams.get("iss")).toBe(REALM);
        url.searchParams.set("iss", "https://sso.example.com/realms/other");
        return { url };
      },
    });
    expectFailedSignIn(result, logger, { secrets: [idp.clientSecret] });
    expect(idp.requestsTo("POST", `${OIDC}/token`)).toEqual([]);
  });

  test("the options and profile are typed", () => {
    expectTypeOf(Keycloak).parameter(0).toEqualTypeOf<KeycloakOptions | undefined>();
    expectTypeOf(Keycloak().profile!).parameter(0).toEqualTypeOf<KeycloakProfile>();
    // @ts-expect-error: the issuer is a string
    Keycloak({ issuer: new URL(REALM) });
  });

  test("without a full name the given and family names make one, then the username", () => {
    expect(Keycloak().profile!(fixtures.noPicture, {})).toEqual({
      id: "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
      name: "Jo Bloggs",
      email: "jo@example.com",
      image: null,
    });
    expect(Keycloak().profile!(fixtures.noEmail, {})).toMatchObject({ name: "service-desk" });
  });
});
