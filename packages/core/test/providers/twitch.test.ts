/**
 * Twitch end to end through `Auth()` against an imitation of id.twitch.tv: OpenID discovery at
 * `https://id.twitch.tv/oauth2`, the `claims` parameter deciding which claims the ID token holds,
 * `client_secret_post` at `/oauth2/token`, Twitch's token answer (`scope` as an array) and its
 * error shape (`{ status, message }`).
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Twitch, {
  TWITCH_ISSUER,
  type TwitchOptions,
  type TwitchProfile,
} from "@gatehousejs/core/providers/twitch";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Grant, type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/twitch.js";

const AUTHORIZE = "https://id.twitch.tv/oauth2/authorize";
const TOKEN = "https://id.twitch.tv/oauth2/token";
const USERINFO = "https://id.twitch.tv/oauth2/userinfo";
const OPTIONAL = ["email", "email_verified", "picture", "updated_at"] as const;

/** The claims Twitch releases for a grant: the base ones, plus those the `claims` parameter names. */
function released(grant: Grant<fixtures.TwitchUser>, where: "id_token" | "userinfo") {
  const asked = (JSON.parse(grant.params.claims ?? "{}") as Record<string, object>)[where] ?? {};
  const user = grant.user;
  const out: Record<string, unknown> = {
    sub: user.sub,
    preferred_username: user.preferred_username,
  };
  for (const claim of OPTIONAL) {
    if (!(claim in asked) || user[claim] === undefined) continue;
    if (claim.startsWith("email") && !grant.scopes.includes("user:read:email")) continue;
    out[claim] = user[claim];
  }
  return out;
}

let tw: Imitation<fixtures.TwitchUser>;
beforeAll(async () => {
  tw = await startImitation<fixtures.TwitchUser>({
    origins: ["https://id.twitch.tv"],
    authorize: {
      url: AUTHORIZE,
      state: true,
      nonce: true,
      scope: { include: ["openid"], known: ["openid", "user:read:email", "user:read:follows"] },
      redirectUris: [`${ORIGIN}/auth/callback/twitch`],
      check: (params) => {
        const claims = params.get("claims");
        if (claims === null) return undefined;
        try {
          const parsed = JSON.parse(claims) as unknown;
          return typeof parsed === "object" && parsed !== null ? undefined : "claims is no object";
        } catch {
          return "claims is not JSON";
        }
      },
    },
    token: {
      url: TOKEN,
      auth: "client_secret_post",
      // Twitch lists the granted scopes as an array.
      response: (body, grant) => ({ ...body, token_type: "bearer", scope: grant.scopes }),
      error: (_error, description, status) => ({ status, body: { status, message: description } }),
    },
    oidc: {
      issuer: TWITCH_ISSUER,
      jwksUrl: "https://id.twitch.tv/oauth2/keys",
      userinfoUrl: USERINFO,
      claims: (grant) => ({ ...released(grant, "id_token"), azp: grant.clientId }),
      userinfo: (grant) => released(grant, "userinfo"),
      metadata: {
        // Twitch documents neither PKCE nor client_secret_basic.
        code_challenge_methods_supported: undefined,
        token_endpoint_auth_methods_supported: ["client_secret_post"],
        claims_parameter_supported: true,
        claims_supported: [
          "aud",
          "exp",
          "iat",
          "iss",
          "sub",
          "azp",
          "email",
          "email_verified",
          "picture",
          "preferred_username",
          "updated_at",
        ],
      },
    },
    user: fixtures.full,
  });
});
afterEach(() => {
  tw.reset();
  vi.unstubAllEnvs();
});
afterAll(() => tw.close());

const provider = (options: TwitchOptions = {}) =>
  Twitch({
    clientId: tw.clientId,
    clientSecret: tw.clientSecret,
    [customFetch]: tw.fetch,
    ...options,
  }) as unknown as OAuthConfig;

describe("the Twitch sign-in", () => {
  test("discovery, the claims parameter, state and nonce, client_secret_post, an array scope", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "twitch", tw);

    expect(tw.requestsTo("GET", `${TWITCH_ISSUER}/.well-known/openid-configuration`)).toHaveLength(
      1,
    );
    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("openid user:read:email");
    const claims = JSON.parse(auth.searchParams.get("claims")!);
    const wanted = { email: null, email_verified: null, picture: null, preferred_username: null };
    expect(claims).toEqual({ id_token: wanted, userinfo: wanted });
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(auth.searchParams.get("nonce")).toBeTruthy();
    expect(auth.searchParams.has("code_challenge")).toBe(false);

    const [token] = tw.requestsTo("POST", TOKEN);
    const form = new URLSearchParams(token!.body);
    expect(form.get("client_id")).toBe(tw.clientId);
    expect(form.get("client_secret")).toBe(tw.clientSecret);
    expect(token!.headers.authorization).toBeUndefined();

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "JaneStreams",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    });
    // The profile came from the ID token: no userinfo call.
    expect(tw.requestsTo("GET", USERINFO)).toEqual([]);
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("the granted scopes (an array at Twitch) are stored as OAuth's space-separated string", async () => {
    const adapter = MemoryAdapter();
    const linkAccount = vi.spyOn(adapter, "linkAccount");
    const { config } = providerConfig(provider(), { adapter });
    await signIn(config, "twitch", tw);
    expect(linkAccount).toHaveBeenCalledOnce();
    expect(linkAccount.mock.calls[0]![0]).toMatchObject({ scope: "openid user:read:email" });
  });

  test("client id and secret come from AUTH_TWITCH_ID and AUTH_TWITCH_SECRET", async () => {
    vi.stubEnv("AUTH_TWITCH_ID", tw.clientId);
    vi.stubEnv("AUTH_TWITCH_SECRET", tw.clientSecret);
    const { config } = providerConfig(
      Twitch({ [customFetch]: tw.fetch }) as unknown as OAuthConfig,
    );
    const result = await signIn(config, "twitch", tw);
    expect(result.session?.user?.name).toBe("JaneStreams");
  });

  test("without user:read:email the ID token has no email: email null", async () => {
    const { config } = providerConfig(provider({ scope: "openid" }));
    const result = await signIn(config, "twitch", tw);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toMatchObject({
      name: "JaneStreams",
      image: fixtures.full.picture,
    });
    expect(result.session?.user?.email ?? null).toBeNull();
  });

  test("an address Twitch marks unverified is no address; no picture: image null", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(provider(), { adapter });
    await signIn(config, "twitch", tw, { decision: { user: fixtures.unverified } });
    expect(await adapter.getUserByEmail!("sam@example.com")).toBeNull();

    const result = await signIn(config, "twitch", tw, { decision: { user: fixtures.noPicture } });
    expect(result.session?.user).toEqual({
      name: "NoPic",
      email: "nopic@example.com",
      image: null,
    });
  });

  test("the options and profile are typed", () => {
    expectTypeOf(Twitch).parameter(0).toEqualTypeOf<TwitchOptions | undefined>();
    expectTypeOf(Twitch().profile!).parameter(0).toEqualTypeOf<TwitchProfile>();
    // @ts-expect-error: the scope is one space-separated string
    Twitch({ scope: ["openid"] });
  });

  test("profile mapping of the documented claims", () => {
    const base = { iss: TWITCH_ISSUER, aud: "c", exp: 2, iat: 1 };
    const map = (p: fixtures.TwitchUser) => Twitch().profile!({ ...base, ...p }, {});
    expect(map(fixtures.full)).toEqual({
      id: "713936733",
      name: "JaneStreams",
      email: "jane.doe@example.com",
      image: fixtures.full.picture,
    });
    expect(map({ sub: "1", preferred_username: "x" })).toEqual({
      id: "1",
      name: "x",
      email: null,
      image: null,
    });
  });
});

describe("Twitch errors end on the sign-in page", () => {
  test("the user declines (error=access_denied)", async () => {
    const { config, logger } = providerConfig(provider());
    expectFailedSignIn(await signIn(config, "twitch", tw, { decision: { deny: true } }), logger, {
      secrets: [tw.clientSecret],
    });
  });

  test("an invalid code: Twitch's { status, message } answer", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "twitch", tw, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "forged-code");
        return { url };
      },
    });
    expectFailedSignIn(result, logger, { secrets: [tw.clientSecret] });
  });

  test("a 5xx from the token endpoint", async () => {
    tw.force("POST", TOKEN, {
      status: 500,
      body: { status: 500, message: "Internal Server Error" },
    });
    const { config, logger } = providerConfig(provider());
    expectFailedSignIn(await signIn(config, "twitch", tw), logger, { secrets: [tw.clientSecret] });
  });
});
