/**
 * ZITADEL end to end through `Auth()` against an imitation of an instance
 * (`https://gatehouse-test-abc123.zitadel.cloud`) whose ID tokens carry only `sub` (the default:
 * "User Info inside ID Token" off): the name, email and picture come from `/oidc/v1/userinfo`.
 */
import { customFetch } from "@gatehousejs/core";
import Zitadel, {
  type ZitadelOptions,
  type ZitadelProfile,
} from "@gatehousejs/core/providers/zitadel";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, expectTypeOf, test } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors, signInError } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import { issuerProviderSuite } from "./fixtures/oidc-issuer-suite.js";
import * as fixtures from "./fixtures/zitadel.js";

const ISSUER = "https://gatehouse-test-abc123.zitadel.cloud";

const suite = issuerProviderSuite({
  id: "zitadel",
  factory: (options) => Zitadel(options as ZitadelOptions) as unknown as OAuthConfig,
  issuer: ISSUER,
  endpoints: {
    authorize: `${ISSUER}/oauth/v2/authorize`,
    token: `${ISSUER}/oauth/v2/token`,
    userinfo: `${ISSUER}/oidc/v1/userinfo`,
    jwks: `${ISSUER}/oauth/v2/keys`,
  },
  auth: "client_secret_basic",
  profileIn: "userinfo",
  fixtures: {
    ...fixtures,
    fullUser: {
      id: "291645210526875668",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    },
  },
});

describe("zitadel specifics", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Zitadel).parameter(0).toEqualTypeOf<ZitadelOptions | undefined>();
    expectTypeOf(Zitadel().profile!).parameter(0).toEqualTypeOf<ZitadelProfile>();
  });

  test("the userinfo call carries the access token and its profile is the one mapped", async () => {
    const { config } = suite.setup(suite.provider());
    const result = await signIn(config, "zitadel", suite.imitation());
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    const [call] = suite.imitation().requestsTo("GET", `${ISSUER}/oidc/v1/userinfo`);
    expect(call!.headers.authorization).toMatch(/^Bearer at-/);
    expect(result.session?.user).toEqual({
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    });
  });

  test("a userinfo answer about another subject is refused", async () => {
    const { config, logger } = suite.setup(suite.provider());
    const idp = suite.imitation();
    idp.force("GET", `${ISSUER}/oidc/v1/userinfo`, {
      body: { ...fixtures.full, sub: "someone-else" },
    });
    const result = await signIn(config, "zitadel", idp);
    expect(result.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
    expect(result.session).toBeNull();
    expect(loggedErrors(logger)).toHaveLength(1);
  });

  test("with `idToken: true` (User Info inside ID Token on) no userinfo call is made", async () => {
    const idp = suite.imitation();
    const { config } = suite.setup(
      Zitadel({
        issuer: ISSUER,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        idToken: true,
        [customFetch]: idp.fetch,
      }),
    );
    const result = await signIn(config, "zitadel", idp);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(idp.requestsTo("GET", `${ISSUER}/oidc/v1/userinfo`)).toEqual([]);
    // This imitation's ID tokens hold only `sub`, so the name is missing: the reason for the default.
    expect(result.session?.user?.name ?? null).toBeNull();
  });
});
