/**
 * Auth0 end to end through `Auth()` against an imitation of a tenant's real origin
 * (`https://gatehouse-test.eu.auth0.com/`): discovery, `/authorize`, `/oauth/token` with the
 * secret in the body (Auth0's default for Regular Web Applications), and ID token claims.
 */
import { customFetch } from "@gatehousejs/core";
import Auth0, { type Auth0Options, type Auth0Profile } from "@gatehousejs/core/providers/auth0";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import { ORIGIN } from "../helpers.js";
import { signIn } from "../support/provider-flow.js";
import * as fixtures from "./fixtures/auth0.js";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";

const TENANT = "https://gatehouse-test.eu.auth0.com";

const suite = issuerProviderSuite({
  id: "auth0",
  factory: (options) => Auth0(options as Auth0Options) as unknown as OAuthConfig,
  // Auth0 writes its issuer with a trailing slash.
  issuer: `${TENANT}/`,
  endpoints: {
    authorize: `${TENANT}/authorize`,
    token: `${TENANT}/oauth/token`,
    userinfo: `${TENANT}/userinfo`,
    jwks: `${TENANT}/.well-known/jwks.json`,
  },
  auth: "client_secret_post",
  profileIn: "id_token",
  // Auth0 answers a bad code with 403 and an RFC 6749 body.
  tokenError: (error, description, status) => ({
    status: error === "invalid_grant" ? 403 : status,
    body: { error, error_description: description },
  }),
  fixtures: {
    ...fixtures,
    fullUser: {
      id: fixtures.full.sub,
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    },
  },
});

describe("auth0 specifics", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Auth0).parameter(0).toEqualTypeOf<Auth0Options | undefined>();
    expectTypeOf(Auth0().profile!).parameter(0).toEqualTypeOf<Auth0Profile>();
    // @ts-expect-error: the issuer is a string
    Auth0({ issuer: 42 });
  });

  test("an issuer written without Auth0's trailing slash still matches its discovery", async () => {
    const { config } = suite.setup(suite.provider({ issuer: TENANT }));
    const result = await signIn(config, "auth0", suite.imitation());
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.name).toBe("Jane Doe");
  });

  test("a name-less profile falls back to the nickname; the button has Auth0's colours and an inline logo", () => {
    const provider = Auth0({ [customFetch]: fetch });
    expect(provider.profile!(fixtures.noPicture, {})).toEqual({
      id: "samlp|corp|jdoe",
      name: "jdoe",
      email: "jdoe@corp.example",
      image: null,
    });
    expect(provider.style?.logo).toMatch(/^data:image\/svg\+xml/);
    expect(provider.style?.brandColor).toBe("#eb5424");
  });
});
