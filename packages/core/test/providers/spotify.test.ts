/**
 * Spotify end to end through `Auth()` against an imitation of accounts.spotify.com (authorize
 * with PKCE, `/api/token` with HTTP Basic client authentication) and api.spotify.com (`/v1/me`,
 * whose fields depend on the granted scopes), with Spotify's error shapes.
 */
import { customFetch } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Spotify, {
  type SpotifyOptions,
  type SpotifyProfile,
} from "@gatehousejs/core/providers/spotify";
import type { OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, test, vi } from "vitest";
import { ORIGIN } from "../helpers.js";
import { loggedErrors } from "../support/oauth-flow.js";
import { expectFailedSignIn, providerConfig, signIn } from "../support/provider-flow.js";
import { type Imitation, startImitation } from "../support/provider-imitation.js";
import * as fixtures from "./fixtures/spotify.js";

const AUTHORIZE = "https://accounts.spotify.com/authorize";
const TOKEN = "https://accounts.spotify.com/api/token";
const ME = "https://api.spotify.com/v1/me";

let sp: Imitation<SpotifyProfile>;
beforeAll(async () => {
  sp = await startImitation<SpotifyProfile>({
    origins: ["https://accounts.spotify.com", "https://api.spotify.com"],
    authorize: {
      url: AUTHORIZE,
      pkce: "optional",
      state: true,
      scope: {
        required: false,
        known: ["user-read-email", "user-read-private", "playlist-read-private"],
      },
      redirectUris: [`${ORIGIN}/auth/callback/spotify`],
    },
    token: { url: TOKEN, auth: "client_secret_basic" },
    // The Web API's error object.
    unauthorized: () => ({
      status: 401,
      body: { error: { status: 401, message: "Invalid access token" } },
    }),
    user: fixtures.full,
  });
  sp.route("GET", ME, ({ grant }) => {
    const { email, country, product, explicit_content, ...rest } = grant!.user;
    const body: Record<string, unknown> = { ...rest };
    if (grant!.scopes.includes("user-read-email") && email !== undefined) body.email = email;
    if (grant!.scopes.includes("user-read-private")) {
      Object.assign(body, { country, product, explicit_content });
    }
    return { body };
  });
});
afterEach(() => {
  sp.reset();
  vi.unstubAllEnvs();
});
afterAll(() => sp.close());

const provider = (options: SpotifyOptions = {}) =>
  Spotify({
    clientId: sp.clientId,
    clientSecret: sp.clientSecret,
    [customFetch]: sp.fetch,
    ...options,
  }) as unknown as OAuthConfig;

describe("the Spotify sign-in", () => {
  test("PKCE and state, HTTP Basic at /api/token, GET /v1/me with the Bearer token", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "spotify", sp);

    const auth = result.authorization!;
    expect(`${auth.origin}${auth.pathname}`).toBe(AUTHORIZE);
    expect(auth.searchParams.get("scope")).toBe("user-read-email");
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("state")).toBeTruthy();

    const [token] = sp.requestsTo("POST", TOKEN);
    expect(token!.headers.authorization).toMatch(/^Basic /);
    expect(new URLSearchParams(token!.body).get("code_verifier")).toBeTruthy();
    const [me] = sp.requestsTo("GET", ME);
    expect(me!.headers.authorization).toMatch(/^Bearer at-/);

    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user).toEqual({
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: "https://i.scdn.co/image/ab6775700000ee85large",
    });
    expect(loggedErrors(logger)).toEqual([]);
  });

  test("client id and secret come from AUTH_SPOTIFY_ID and AUTH_SPOTIFY_SECRET", async () => {
    vi.stubEnv("AUTH_SPOTIFY_ID", sp.clientId);
    vi.stubEnv("AUTH_SPOTIFY_SECRET", sp.clientSecret);
    const { config } = providerConfig(
      Spotify({ [customFetch]: sp.fetch }) as unknown as OAuthConfig,
    );
    const result = await signIn(config, "spotify", sp);
    expect(result.session?.user?.name).toBe("Jane Doe");
  });

  test("Spotify's unverified email never finds, links to or is stored on a user", async () => {
    const adapter = MemoryAdapter();
    const existing = await adapter.createUser!({
      id: "u-existing",
      email: "jane.doe@example.com",
      emailVerified: new Date(),
    });
    const { config } = providerConfig(provider({ allowDangerousEmailAccountLinking: true }), {
      adapter,
    });
    const result = await signIn(config, "spotify", sp);
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.email ?? null).toBeNull();
    const linked = await adapter.getUserByAccount!({
      provider: "spotify",
      providerAccountId: "jdoe123",
    });
    expect(linked).not.toBeNull();
    expect(linked!.id).not.toBe(existing.id);
  });

  test("without user-read-email there is no email; no images: image null", async () => {
    const { config } = providerConfig(provider({ scope: "user-read-private" }));
    const result = await signIn(config, "spotify", sp, { decision: { user: fixtures.noPicture } });
    expect(result.response.headers.get("location")).toBe(ORIGIN);
    expect(result.session?.user?.email ?? null).toBeNull();
    expect(result.session?.user?.image ?? null).toBeNull();
  });

  test("the options and profile are typed", () => {
    expectTypeOf(Spotify).parameter(0).toEqualTypeOf<SpotifyOptions | undefined>();
    expectTypeOf(Spotify().profile!).parameter(0).toEqualTypeOf<SpotifyProfile>();
    // @ts-expect-error: the scope is one space-separated string
    Spotify({ scope: ["user-read-email"] });
  });

  test("profile mapping: the largest image, a null display name, an empty images list", () => {
    const map = (p: SpotifyProfile) => Spotify().profile!(p, {});
    expect(map(fixtures.full)).toEqual({
      id: "jdoe123",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      image: "https://i.scdn.co/image/ab6775700000ee85large",
    });
    expect(map(fixtures.noPicture)).toEqual({
      id: "31l77y2al5lnn7mxfrmd4bpfhqke",
      name: null,
      email: "nopic@example.com",
      image: null,
    });
    const { email: _email, ...noEmail } = fixtures.full;
    expect(map(noEmail as SpotifyProfile)).toMatchObject({ email: null });
  });
});

describe("Spotify errors end on the sign-in page", () => {
  test("the user cancels (error=access_denied)", async () => {
    const { config, logger } = providerConfig(provider());
    expectFailedSignIn(await signIn(config, "spotify", sp, { decision: { deny: true } }), logger, {
      secrets: [sp.clientSecret],
    });
  });

  test("an invalid code (invalid_grant)", async () => {
    const { config, logger } = providerConfig(provider());
    const result = await signIn(config, "spotify", sp, {
      tamper: (answer) => {
        const url = new URL(answer.url);
        url.searchParams.set("code", "AQB-forged");
        return { url };
      },
    });
    expectFailedSignIn(result, logger, { secrets: [sp.clientSecret] });
  });

  test("a 5xx from /api/token and from /v1/me", async () => {
    sp.force("POST", TOKEN, { status: 502, body: "Bad Gateway" }, 1);
    const first = providerConfig(provider());
    expectFailedSignIn(await signIn(first.config, "spotify", sp), first.logger, {
      secrets: [sp.clientSecret],
    });

    sp.force(
      "GET",
      ME,
      { status: 503, body: { error: { status: 503, message: "Service unavailable" } } },
      1,
    );
    const second = providerConfig(provider());
    expectFailedSignIn(await signIn(second.config, "spotify", sp), second.logger, {
      secrets: [sp.clientSecret],
    });
  });
});
