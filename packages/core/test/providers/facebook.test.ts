/**
 * Facebook Login end to end through `Auth()` against an imitation of www.facebook.com (the
 * versioned login dialog) and graph.facebook.com (the versioned token endpoint and `GET /me`
 * with its `fields` parameter), answering errors in the Graph API's own shape.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Facebook, {
  FACEBOOK_GRAPH_VERSION,
  type FacebookOptions,
  type FacebookProfile,
} from "@gatehousejs/core/providers/facebook";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/facebook.js";

const V = FACEBOOK_GRAPH_VERSION;
const DIALOG = `https://www.facebook.com/${V}/dialog/oauth`;
const TOKEN = `https://graph.facebook.com/${V}/oauth/access_token`;
const ME = `https://graph.facebook.com/${V}/me`;

/** The Graph API's error body. */
const graphError = (message: string, code: number, status = 400) => ({
  status,
  body: { error: { message, type: "OAuthException", code, fbtrace_id: "AbCdEfGhIjK" } },
});

let fb: Imitation<fixtures.FacebookUser>;
beforeAll(async () => {
  fb = await startImitation<fixtures.FacebookUser>({
    origins: ["https://www.facebook.com", "https://graph.facebook.com"],
    authorize: {
      url: DIALOG,
      state: true,
      scope: { separator: ",", known: ["public_profile", "email", "user_birthday"] },
      redirectUris: [`${ORIGIN}/auth/callback/facebook`],
    },
    token: {
      url: TOKEN,
      auth: "client_secret_post",
      refreshToken: false,
      // Facebook answers a user token without `scope`.
      response: ({ scope: _scope, ...body }) => ({ ...body, token_type: "bearer" }),
      error: (error, description) =>
        graphError(`${error}: ${description}`, error === "invalid_client" ? 101 : 100),
    },
    unauthorized: () => graphError("Invalid OAuth access token - Cannot parse access token", 190),
    user: fixtures.full,
  });
  fb.route("GET", ME, ({ url, grant }) => {
    const fields = url.searchParams.get("fields");
    // Without `fields`, the Graph API answers only id and name.
    const wanted = fields ? fields.split(",") : ["id", "name"];
    const user = grant!.user;
    const answer: Record<string, unknown> = {};
    // The email field needs the granted (and not declined) email permission.
    const emailGranted = grant!.scopes.includes("email") && !user.declined?.includes("email");
    for (const field of wanted) {
      const name = field.split(".")[0]!;
      if (name === "declined" || (name === "email" && !emailGranted)) continue;
      if (name in user) answer[name] = user[name];
    }
    return { body: answer };
  });
});
afterEach(() => {
  fb.reset();
  vi.unstubAllEnvs();
});
afterAll(() => fb.close());

const provider = (options: FacebookOptions = {}) =>
  Facebook({
    clientId: fb.clientId,
    clientSecret: fb.clientSecret,
    [customFetch]: fb.fetch,
    ...options,
  }) as unknown as OAuthConfig;

describe("the Facebook sign-in", () => {
  test("the versioned dialog with PKCE and state, the secret in the token body, GET /me with fields", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "facebook", fb);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(DIALOG);
    expect(auth.searchParams.get("scope")).toBe("public_profile,email");
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("state")).toBeTruthy();

    const [token] = fb.requestsTo("POST", TOKEN);
    const form = new URLSearchParams(token!.body);
    expect(form.get("client_id")).toBe(fb.clientId);
    expect(form.get("client_secret")).toBe(fb.clientSecret);
    expect(form.get("code_verifier")).toBeTruthy();
    expect(token!.headers.authorization).toBeUndefined();

    const [me] = fb.requestsTo("GET", ME);
    expect(me!.query.fields).toBe("id,name,email,picture");
    expect(me!.headers.authorization).toMatch(/^Bearer at-/);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture!.data.url,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("client id and secret come from AUTH_FACEBOOK_ID and AUTH_FACEBOOK_SECRET", async () => {
    const { config } = providerConfig(
      Facebook({ [customFetch]: fb.fetch }) as unknown as OAuthConfig,
    );
    vi.stubEnv("AUTH_FACEBOOK_ID", fb.clientId);
    vi.stubEnv("AUTH_FACEBOOK_SECRET", fb.clientSecret);
    const result = await signIn(config, "facebook", fb);
    expect(result.session?.user?.name).toBe("Jane Doe");
  });

  test("a user without an address, and one who declined the email permission: email null", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(provider(), { adapter });
    const none = await signIn(config, "facebook", fb, { decision: { user: fixtures.noEmail } });
    expect(none.response.headers.get("location")).toBe(ORIGIN);
    expect(none.session?.user?.email ?? null).toBeNull();

    const declined = await signIn(config, "facebook", fb, {
      decision: { user: fixtures.declinedEmail },
    });
    expect(declined.session?.user).toMatchObject({ name: "Private Person" });
    expect(declined.session?.user?.email ?? null).toBeNull();
    expect(await adapter.getUserByEmail!("private@example.com")).toBeNull();
  });

  test("no profile picture (the default silhouette): image null", async () => {
    const { config } = providerConfig(provider());
    const result = await signIn(config, "facebook", fb, { decision: { user: fixtures.noPicture } });
    expect(result.session?.user).toEqual({
      name: "No Photo",
      email: "nophoto@example.com",
      image: null,
    });
  });

  test("fields and version are options; id is always asked for", () => {
    const p = Facebook({ version: "v25.0", fields: ["name", "picture.width(256)"] });
    expect(p.authorization).toMatchObject({ url: "https://www.facebook.com/v25.0/dialog/oauth" });
    expect(p.token).toBe("https://graph.facebook.com/v25.0/oauth/access_token");
    expect(p.userinfo).toEqual({
      url: "https://graph.facebook.com/v25.0/me",
      params: { fields: "id,name,picture.width(256)" },
    });
  });

  test("the options and profile are typed", () => {
    expectTypeOf(Facebook).parameter(0).toEqualTypeOf<FacebookOptions | undefined>();
    expectTypeOf(Facebook().profile!).parameter(0).toEqualTypeOf<FacebookProfile>();
    // @ts-expect-error: fields is a list
    Facebook({ fields: "id,name" });
  });

  test("profile mapping of the documented fixtures", () => {
    const map = (p: FacebookProfile) => Facebook().profile!(p, {});
    expect(map(fixtures.full)).toEqual({
      id: "10224567890123456",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: fixtures.full.picture!.data.url,
    });
    expect(map({ id: "1" })).toEqual({ id: "1", name: null, email: null, image: null });
    expect(map(fixtures.noPicture)).toMatchObject({ image: null });
  });
});

describe("Facebook errors end on the sign-in page", () => {
  test("the user cancels the dialog (error=access_denied)", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "facebook", fb, {
      decision: { deny: true, extra: { error_reason: "user_denied", error_code: "200" } },
    });
    expectFailedSignIn(result, logger, { secrets: [fb.clientSecret] });
  });

  test("an invalid code: the Graph API's OAuthException", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "facebook", fb, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "AQD-forged");
        return { url };
      },
    });
    expectFailedSignIn(result, logger, { secrets: [fb.clientSecret] });
  });

  test("a 5xx from the token endpoint and from /me", async () => {
    fb.force("POST", TOKEN, graphError("An unexpected error has occurred.", 2, 500), 1);
    const first = providerConfig(provider());
    expectFailedSignIn(await signIn(first.config, "facebook", fb), first.logger, {
      secrets: [fb.clientSecret],
    });

    fb.force("GET", ME, graphError("Service temporarily unavailable", 2, 503), 1);
    const second = providerConfig(provider());
    expectFailedSignIn(await signIn(second.config, "facebook", fb), second.logger, {
      secrets: [fb.clientSecret],
    });
  });
});
