/**
 * Sign in with Slack through `Auth()` against an imitation of `https://slack.com`: discovery at
 * the issuer, `/openid/connect/authorize` with state and nonce, `openid.connect.token` with the
 * secret in the body and Slack's errors (HTTP 200 with `ok: false`), the ID token's claims, and the
 * picture from `openid.connect.userInfo` when the ID token has none.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Slack, {
  SLACK_ISSUER,
  type SlackOptions,
  type SlackProfile,
  slackPicture,
} from "@gatehousejs/core/providers/slack";
import type { AuthConfig, OAuthConfig, Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import { expectNoSessionCookie, loggedErrors, signInError } from "../support/oauth-flow.js";
import { signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/slack.js";

const AUTHORIZE = "https://slack.com/openid/connect/authorize";
const TOKEN = "https://slack.com/api/openid.connect.token";
const USERINFO = "https://slack.com/api/openid.connect.userInfo";
const DISCOVERY = "https://slack.com/.well-known/openid-configuration";
const IMAGE_CLAIM = /^picture$|^https:\/\/slack\.com\/user_image_/;

let slack: Imitation<SlackProfile>;
/** Whether the ID token carries the picture claims (Slack's may not). */
let pictureInIdToken = true;

beforeAll(async () => {
  slack = await startImitation<SlackProfile>({
    origins: [SLACK_ISSUER],
    authorize: {
      url: AUTHORIZE,
      state: true,
      nonce: true,
      scope: { include: ["openid"], known: ["openid", "profile", "email"] },
      redirectUris: [`${ORIGIN}/auth/callback/slack`],
    },
    token: {
      url: TOKEN,
      auth: "client_secret_post",
      response: (body) => ({ ok: true, ...body }),
      // Slack's Web API answers errors with HTTP 200 and `ok: false`.
      error: (error) => ({
        status: 200,
        body: { ok: false, error: error === "invalid_grant" ? "invalid_code" : error },
      }),
    },
    oidc: {
      issuer: SLACK_ISSUER,
      jwksUrl: "https://slack.com/openid/connect/keys",
      userinfoUrl: USERINFO,
      claims: (grant) =>
        Object.fromEntries(
          Object.entries(grant.user).filter(([k]) => pictureInIdToken || !IMAGE_CLAIM.test(k)),
        ),
      userinfo: (grant) => ({ ok: true, ...grant.user }),
    },
    user: fixtures.full,
    unauthorized: () => ({ status: 200, body: { ok: false, error: "invalid_auth" } }),
  });
});
afterEach(() => {
  slack.reset();
  pictureInIdToken = true;
  vi.unstubAllEnvs();
});
afterAll(() => slack.close());

function provider(extra: SlackOptions = {}): OAuthConfig {
  return Slack({
    clientId: slack.clientId,
    clientSecret: slack.clientSecret,
    [customFetch]: slack.fetch,
    ...extra,
  }) as unknown as OAuthConfig;
}

function setup(p: Provider, overrides: Partial<AuthConfig> = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [p],
    ...overrides,
  };
  return { config, logger };
}

function expectFailed(
  result: Awaited<ReturnType<typeof signIn>>,
  logger: ReturnType<typeof recordingLogger>,
) {
  expect(result.response.status).toBe(302);
  expect(result.response.headers.get("location")).toBe(signInError("OAuthCallbackError"));
  expectNoSessionCookie(result.response);
  expect(result.session).toBeNull();
  const lines = loggedErrors(logger);
  expect(lines, lines.join("\n")).toHaveLength(1);
  expect(lines[0]).toMatch(/^OAuthCallbackError: /);
  expect(lines[0]).not.toContain(slack.clientSecret);
  return lines[0]!;
}

describe("slack: the sign-in", () => {
  test("discovers slack.com, sends state and nonce, the secret in the body; the ID token's picture needs no userinfo call", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "slack", slack);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("openid profile email");
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(auth.searchParams.get("nonce")).toBeTruthy();
    expect(slack.requestsTo("GET", DISCOVERY)).toHaveLength(1);
    const [token] = slack.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(token!.body).get("client_secret")).toBe(slack.clientSecret);
    expect(slack.requestsTo("POST", USERINFO)).toEqual([]);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "krane",
      email: "krane@slack-corp.example",
      image: fixtures.full.picture,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("an ID token without a picture: the picture comes from openid.connect.userInfo", async () => {
    pictureInIdToken = false;
    const { config, logger } = setup(provider());
    const result = await signIn(config, "slack", slack);
    const [info] = slack.requestsTo("POST", USERINFO);
    expect(info!.headers.authorization).toMatch(/^Bearer at-/);
    expect(result.session?.user?.image).toBe(fixtures.full.picture);

    const imagesOnly = await signIn(config, "slack", slack, {
      decision: { user: fixtures.imagesOnly },
    });
    expect(imagesOnly.session?.user?.image).toBe(
      fixtures.imagesOnly["https://slack.com/user_image_512"],
    );
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("a failing userInfo call (ok: false, a 5xx) or no picture anywhere: image null, the sign-in goes on", async () => {
    pictureInIdToken = false;
    const { config, logger } = setup(provider());
    slack.force("POST", USERINFO, { body: { ok: false, error: "invalid_auth" } }, 1);
    const refused = await signIn(config, "slack", slack);
    expect(refused.response.headers.get("location")).toBe(ORIGIN);
    expect(refused.session?.user).toMatchObject({ name: "krane", image: null });

    slack.force("POST", USERINFO, { status: 503, body: "down" }, 1);
    const down = await signIn(config, "slack", slack);
    expect(down.session?.user).toMatchObject({ name: "krane", image: null });

    const none = await signIn(config, "slack", slack, { decision: { user: fixtures.noPicture } });
    expect(none.session?.user).toEqual({
      name: "No Picture",
      email: "nopic@slack-corp.example",
      image: null,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("client id and secret come from AUTH_SLACK_ID and AUTH_SLACK_SECRET", async () => {
    vi.stubEnv("AUTH_SLACK_ID", slack.clientId);
    vi.stubEnv("AUTH_SLACK_SECRET", slack.clientSecret);
    const { config } = setup(Slack({ [customFetch]: slack.fetch }) as unknown as OAuthConfig);
    const result = await signIn(config, "slack", slack);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
  });

  test("no email: email null and the name from given and family names; an unverified address is not stored", async () => {
    const adapter = MemoryAdapter();
    const { config } = setup(provider(), { adapter });
    const noEmail = await signIn(config, "slack", slack, { decision: { user: fixtures.noEmail } });
    expect(noEmail.session?.user).toEqual({
      name: "Quiet User",
      email: null,
      image: fixtures.noEmail.picture,
    });
    await signIn(config, "slack", slack, { decision: { user: fixtures.unverified } });
    expect(await adapter.getUserByEmail!("unverified@slack-corp.example")).toBeNull();
  });
});

describe("slack: provider errors end on the sign-in page", () => {
  test("access_denied on the callback", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "slack", slack, { decision: { deny: true } });
    expect(result.answer!.url.searchParams.get("error")).toBe("access_denied");
    expectFailed(result, logger);
    expect(slack.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code: Slack's HTTP 200 with ok: false and invalid_code", async () => {
    const { config, logger } = setup(provider());
    const result = await signIn(config, "slack", slack, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "4724469134.never-issued");
        return { ...answer, url };
      },
    });
    expect(slack.requestsTo("POST", TOKEN)).toHaveLength(1);
    expectFailed(result, logger);
  });

  test("a 5xx from the token endpoint", async () => {
    slack.force("POST", TOKEN, { status: 500, body: "oops" });
    const { config, logger } = setup(provider());
    expectFailed(await signIn(config, "slack", slack), logger);
  });
});

describe("slack: factory and profile", () => {
  test("the options and profile are typed", () => {
    expectTypeOf(Slack).parameter(0).toEqualTypeOf<SlackOptions | undefined>();
    expectTypeOf(Slack().profile!).parameter(0).toEqualTypeOf<SlackProfile>();
    // @ts-expect-error: the issuer is a string
    Slack({ issuer: new URL(SLACK_ISSUER) });
  });

  test("the picture: `picture`, else the largest user image, else null", () => {
    expect(slackPicture(fixtures.full)).toBe(fixtures.full.picture);
    expect(slackPicture(fixtures.imagesOnly)).toBe(
      fixtures.imagesOnly["https://slack.com/user_image_512"],
    );
    expect(slackPicture(fixtures.noPicture)).toBeNull();
    expect(slackPicture(undefined)).toBeNull();
  });

  test("OIDC at slack.com, client_secret_post, state and nonce; Slack's aubergine and an inline logo", () => {
    expect(Slack()).toMatchObject({
      id: "slack",
      type: "oidc",
      issuer: SLACK_ISSUER,
      checks: ["state", "nonce"],
      client: { token_endpoint_auth_method: "client_secret_post" },
      style: { brandColor: "#4a154b" },
    });
    expect(Slack().style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
