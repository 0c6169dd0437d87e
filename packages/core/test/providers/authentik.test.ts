/**
 * authentik end to end through `Auth()` against an imitation of an instance
 * (`https://auth.example.com`) whose application slug `my-app` is part of the issuer
 * (`/application/o/my-app/`, trailing slash included), while the authorize, token and userinfo
 * endpoints are shared by every application (`/application/o/authorize/`, ...).
 */
import Authentik, {
  type AuthentikOptions,
  type AuthentikProfile,
} from "@gatehousejs/core/providers/authentik";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import { loggedErrors } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import * as fixtures from "./fixtures/authentik.js";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";

const HOST = "https://auth.example.com";
const ISSUER = `${HOST}/application/o/my-app/`;

const suite = issuerProviderSuite({
  id: "authentik",
  factory: (options) => Authentik(options as AuthentikOptions) as unknown as OAuthConfig,
  issuer: ISSUER,
  endpoints: {
    authorize: `${HOST}/application/o/authorize/`,
    token: `${HOST}/application/o/token/`,
    userinfo: `${HOST}/application/o/userinfo/`,
    jwks: `${ISSUER}jwks/`,
  },
  auth: "client_secret_basic",
  profileIn: "id_token",
  fixtures: {
    ...fixtures,
    fullUser: {
      id: fixtures.full.sub,
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: "https://auth.example.com/media/avatars/jdoe.png",
    },
  },
});

describe("authentik specifics", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Authentik).parameter(0).toEqualTypeOf<AuthentikOptions | undefined>();
    expectTypeOf(Authentik().profile!).parameter(0).toEqualTypeOf<AuthentikProfile>();
  });

  test("empty name and email strings map to the username and null", () => {
    expect(Authentik().profile!(fixtures.noEmail, {})).toEqual({
      id: fixtures.noEmail.sub,
      name: "kiosk",
      email: null,
      image: null,
    });
  });

  test("an issuer without the slug's trailing slash does not match authentik's discovery", async () => {
    const { config, logger } = suite.setup(suite.provider({ issuer: ISSUER.slice(0, -1) }));
    const result = await signIn(config, "authentik", suite.imitation());
    expect(result.answer).toBeUndefined();
    expect(result.response.status).toBeLessThan(500);
    expect(result.session).toBeNull();
    expect(loggedErrors(logger).join("\n")).toMatch(/Discovery failed/);
  });
});
