/**
 * Discord end to end through `Auth()` against an imitation of discord.com: the authorize
 * parameters, HTTP Basic client authentication at `/api/oauth2/token`, RFC 6749 errors, the
 * `iss` Discord adds to its redirect (RFC 9207), and `/api/v10/users/@me` with the `email` scope
 * deciding whether `email` and `verified` are sent.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Discord, {
  type DiscordOptions,
  type DiscordProfile,
  discordAvatarUrl,
} from "@gatehousejs/core/providers/discord";
import type { Provider } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/discord.js";

const AUTHORIZE = "https://discord.com/oauth2/authorize";
const TOKEN = "https://discord.com/api/oauth2/token";
const ME = "https://discord.com/api/v10/users/@me";

let dc: Imitation<DiscordProfile>;
beforeAll(async () => {
  dc = await startImitation<DiscordProfile>({
    origins: ["https://discord.com"],
    authorize: {
      url: AUTHORIZE,
      pkce: "optional",
      scope: { separator: " ", known: ["identify", "email", "guilds", "connections"] },
      redirectUris: [`${ORIGIN}/auth/callback/discord`],
      // Discord's metadata says authorization_response_iss_parameter_supported.
      extra: () => ({ iss: "https://discord.com" }),
    },
    token: { url: TOKEN, auth: "client_secret_basic", expiresIn: 604800 },
    unauthorized: () => ({ status: 401, body: { message: "401: Unauthorized", code: 0 } }),
    user: fixtures.full,
  });
  dc.route("GET", ME, ({ grant }) => {
    const { email, verified, ...user } = grant!.user;
    return { body: grant!.scopes.includes("email") ? { ...user, email, verified } : user };
  });
});
afterEach(() => {
  dc.reset();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
afterAll(() => dc.close());

const discord = (options: DiscordOptions = {}) =>
  Discord({
    clientId: dc.clientId,
    clientSecret: dc.clientSecret,
    [customFetch]: dc.fetch,
    ...options,
  }) as Provider;

describe("the Discord sign-in", () => {
  test("authorize with identify email, PKCE and state; Basic at the token endpoint; Bearer /users/@me", async () => {
    const { config, logger } = providerConfig(discord());
    const result = await signIn(config, "discord", dc);

    const auth = result.authorization!;
    expect(auth.origin + auth.pathname).toBe(AUTHORIZE);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: dc.clientId,
      redirect_uri: `${ORIGIN}/auth/callback/discord`,
      response_type: "code",
      scope: "identify email",
      code_challenge_method: "S256",
      state: expect.any(String),
    });
    expect(result.answer!.url.searchParams.get("iss")).toBe("https://discord.com");

    const [token] = dc.requestsTo("POST", TOKEN);
    // RFC 6749 2.3.1: id and secret are form-encoded before Base64.
    const basic = Buffer.from(token!.headers.authorization!.replace(/^Basic /, ""), "base64");
    const [id, secret] = basic.toString().split(":").map(decodeURIComponent);
    expect({ id, secret }).toEqual({ id: dc.clientId, secret: dc.clientSecret });
    expect(new URLSearchParams(token!.body).has("client_secret")).toBe(false);
    expect(new URLSearchParams(token!.body).get("code_verifier")).toBeTruthy();
    expect(dc.requestsTo("GET", ME)[0]!.headers.authorization).toMatch(/^Bearer at-/);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Pixel Fox",
      email: "pixel.fox@example.com",
      image: `https://cdn.discordapp.com/avatars/${fixtures.full.id}/${fixtures.full.avatar}.png`,
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("a verified address is the stored user's address; the account is keyed by the snowflake", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(discord(), { adapter });
    await signIn(config, "discord", dc);
    const account = adapter.rows.account({
      provider: "discord",
      providerAccountId: fixtures.full.id,
    });
    expect(account).toMatchObject({ type: "oauth", token_type: "bearer" });
    expect(await adapter.getUserByEmail!("pixel.fox@example.com")).toMatchObject({
      name: "Pixel Fox",
    });
  });

  test("an unverified address is shown but never stored as the user's address", async () => {
    const adapter = MemoryAdapter();
    const { config } = providerConfig(discord(), { adapter });
    const { response } = await signIn(config, "discord", dc, {
      decision: { user: fixtures.unverified },
    });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await adapter.getUserByEmail!("unconfirmed@example.com")).toBeNull();
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1 });
  });

  test("without the email scope: no email; no avatar: Discord's default avatar", async () => {
    dc.user = fixtures.noAvatar;
    const { config } = providerConfig(discord({ scope: "identify" }));
    const { authorization, session } = await signIn(config, "discord", dc);
    expect(authorization!.searchParams.get("scope")).toBe("identify");
    expect(session?.user).toEqual({
      name: "pixelfox",
      email: null,
      image: "https://cdn.discordapp.com/embed/avatars/3.png",
    });
  });

  test("the uninvoked factory in providers, credentials from the environment", async () => {
    vi.stubEnv("AUTH_DISCORD_ID", dc.clientId);
    vi.stubEnv("AUTH_DISCORD_SECRET", dc.clientSecret);
    // No [customFetch] on an uninvoked factory: the global fetch goes to the imitation.
    vi.stubGlobal("fetch", dc.fetch);
    const { config, logger } = providerConfig(Discord);
    const { response, session } = await signIn(config, "discord", dc);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(session?.user?.name).toBe("Pixel Fox");
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("credentials from AUTH_DISCORD_ID and AUTH_DISCORD_SECRET", async () => {
    vi.stubEnv("AUTH_DISCORD_ID", dc.clientId);
    vi.stubEnv("AUTH_DISCORD_SECRET", dc.clientSecret);
    const { config } = providerConfig(Discord({ [customFetch]: dc.fetch }) as Provider);
    const { authorization, session } = await signIn(config, "discord", dc);
    expect(authorization!.searchParams.get("client_id")).toBe(dc.clientId);
    expect(session?.user?.name).toBe("Pixel Fox");
  });
});

describe("Discord's errors end on the sign-in page without a session", () => {
  const secrets = () => [dc.clientSecret];

  test("the user cancels: error=access_denied", async () => {
    const { config, logger } = providerConfig(discord());
    const result = await signIn(config, "discord", dc, { decision: { deny: true } });
    expectFailedSignIn(result, logger, { secrets: secrets() });
    expect(dc.requestsTo("POST", TOKEN)).toEqual([]);
  });

  test("an invalid code: invalid_grant", async () => {
    const { config, logger } = providerConfig(discord());
    const result = await signIn(config, "discord", dc, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "NhhvTDYsFcdgNLnnLijcl7Ku7bEEeee");
        return { ...answer, url };
      },
    });
    expect(expectFailedSignIn(result, logger, { secrets: secrets() })).toContain("invalid_grant");
  });

  test.each([
    ["the token endpoint", "POST", TOKEN],
    ["/users/@me", "GET", ME],
  ])("a 5xx from %s", async (_name, method, url) => {
    dc.force(method, url, {
      status: 500,
      body: { message: "500: Internal Server Error", code: 0 },
    });
    const { config, logger } = providerConfig(discord());
    expectFailedSignIn(await signIn(config, "discord", dc), logger, { secrets: secrets() });
  });
});

describe("profile mapping (fixtures from Discord's User Object reference)", () => {
  const provider = Discord();

  test("display name, email, a PNG avatar", () => {
    expect(provider.profile!(fixtures.full, {})).toEqual({
      id: "1185732491748573194",
      name: "Pixel Fox",
      email: "pixel.fox@example.com",
      image:
        "https://cdn.discordapp.com/avatars/1185732491748573194/5a1d0c1b9e2f3a4b5c6d7e8f90a1b2c3.png",
    });
  });

  test("an animated avatar is a GIF", () => {
    expect(discordAvatarUrl(fixtures.animated)).toBe(
      `https://cdn.discordapp.com/avatars/${fixtures.animated.id}/${fixtures.animated.avatar}.gif`,
    );
  });

  test("no avatar: (id >> 22) % 6 for unique usernames, discriminator % 5 for old tags", () => {
    expect(discordAvatarUrl(fixtures.noAvatar)).toBe(
      "https://cdn.discordapp.com/embed/avatars/3.png",
    );
    expect(discordAvatarUrl(fixtures.legacyNoAvatar)).toBe(
      "https://cdn.discordapp.com/embed/avatars/2.png",
    );
    expect(discordAvatarUrl({ ...fixtures.noAvatar, id: "80351110224678912" })).toBe(
      "https://cdn.discordapp.com/embed/avatars/5.png",
    );
  });

  test("no display name: the username; no email scope: email null", () => {
    expect(provider.profile!(fixtures.noEmail, {})).toMatchObject({ email: null });
    expect(provider.profile!(fixtures.legacyNoAvatar, {})).toMatchObject({ name: "oldtimer" });
  });

  test("only a verified email is an address", () => {
    const user = { email: "x@example.com" };
    expect(provider.emailIsAddress!(fixtures.full, user)).toBe(true);
    expect(provider.emailIsAddress!(fixtures.unverified, user)).toBe(false);
    expect(provider.emailIsAddress!(fixtures.noEmail, user)).toBe(false);
  });

  test("options and profile are typed; Discord's colours and an inline logo", () => {
    expectTypeOf(Discord).parameter(0).toEqualTypeOf<DiscordOptions | undefined>();
    expectTypeOf(provider.profile!).parameter(0).toEqualTypeOf<DiscordProfile>();
    // @ts-expect-error: scope is a string
    Discord({ scope: ["identify"] });
    expect(provider.style).toMatchObject({ bg: "#5865f2", text: "#ffffff" });
    expect(provider.style?.logo).toMatch(/^data:image\/svg\+xml/);
  });
});
