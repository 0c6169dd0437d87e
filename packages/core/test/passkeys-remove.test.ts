/**
 * Listing and removing passkeys (GET /passkeys, POST /passkeys/remove) through `Auth()`, with
 * the memory adapter and a software authenticator: a user sees and removes only their own
 * passkeys, never their last way in, and a two-factor user only after a fresh sign-in.
 */
import type { Adapter } from "@gatehousejs/core/adapters";
import TwoFactor from "@gatehousejs/core/two-factor";
import type { Provider } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { credentialsConfig, csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { passkeysWorld } from "./passkeys-world.js";
import { SoftAuthenticator } from "./support/authenticator.js";

afterEach(() => {
  vi.useRealTimers();
});

const emailProvider = {
  id: "email",
  type: "email",
  name: "Email",
  sendVerificationRequest: () => {},
} as Provider;

/** A passkey-only user holding two passkeys, signed in in `jar`. */
async function twoPasskeys(world = passkeysWorld()) {
  const jar = new Jar();
  const first = await world.register(jar, new SoftAuthenticator({ transports: ["internal"] }));
  const second = await world.register(
    jar,
    new SoftAuthenticator({ transports: ["usb", "nfc"], backupEligible: true, backedUp: true }),
  );
  const userId = await world.ownerOf(first.credentialID);
  return { world, jar, first, second, userId };
}

describe("GET /passkeys", () => {
  test("lists the signed-in user's passkeys: id, device type, backup, transports, provider; no key, no counter", async () => {
    const { world, jar, first, second } = await twoPasskeys();
    await world.register(new Jar()); // somebody else's
    const response = await world.list(jar);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const text = await response.text();
    const { passkeys } = JSON.parse(text) as { passkeys: Record<string, unknown>[] };
    expect(passkeys).toHaveLength(2);
    expect(passkeys).toContainEqual({
      credentialID: first.credentialID,
      provider: "passkey",
      deviceType: "singleDevice",
      backedUp: false,
      transports: ["internal"],
    });
    expect(passkeys).toContainEqual({
      credentialID: second.credentialID,
      provider: "passkey",
      deviceType: "multiDevice",
      backedUp: true,
      transports: ["usb", "nfc"],
    });
    const stored = (await world.adapter.getAuthenticator!(first.credentialID))!;
    expect(text).not.toContain(stored.credentialPublicKey);
    expect(text).not.toMatch(/counter|PublicKey/i);
  });

  test("signed out, it answers 401 Unauthenticated as JSON", async () => {
    const world = passkeysWorld();
    const response = await world.list(new Jar());
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "Unauthenticated" });
    const removal = await world.remove(new Jar(), "anything");
    expect(removal.status).toBe(401);
    expect(await removal.json()).toMatchObject({ error: "Unauthenticated" });
  });

  test("without a passkey provider the routes are off: 404 PasskeysOff", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const listed = await send(config, jar, "/auth/passkeys");
    expect(listed.status).toBe(404);
    expect(await listed.json()).toMatchObject({ error: "PasskeysOff" });
    const removed = await send(config, jar, "/auth/passkeys/remove", {
      json: { csrfToken: await csrfToken(config, jar), credentialID: "x" },
    });
    expect(removed.status).toBe(404);
  });
});

describe("POST /passkeys/remove", () => {
  test("removes one of the user's own passkeys: authenticator and account gone, logged, the rest listed", async () => {
    const { world, jar, first, second, userId } = await twoPasskeys();
    const response = await world.remove(jar, first.credentialID);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      status: string;
      passkeys: { credentialID: string }[];
    };
    expect(body.status).toBe("passkeyRemoved");
    expect(body.passkeys.map((p) => p.credentialID)).toEqual([second.credentialID]);
    expect(await world.adapter.getAuthenticator!(first.credentialID)).toBeNull();
    expect(await world.adapter.getAccount!(first.credentialID, "passkey")).toBeNull();
    expect(await world.adapter.getAuthenticator!(second.credentialID)).not.toBeNull();
    const events = await world.securityLog.list(userId, { limit: 20 });
    expect(events.find((e) => e.type === ("passkeyRemoved" as never))).toMatchObject({
      provider: "passkey",
      providerType: "webauthn",
    });
    // Nothing secret in the log lines: not the credential id, not a cookie.
    const logged = JSON.stringify([
      ...world.logger.warn.mock.calls,
      ...world.logger.error.mock.calls,
    ]);
    expect(logged).not.toContain(first.credentialID);
  });

  test("the removed passkey no longer signs in; the other one still does", async () => {
    const { world, jar, first, second } = await twoPasskeys();
    expect((await world.remove(jar, first.credentialID)).status).toBe(200);
    const out = new Jar();
    const refused = await world.signInWith(out, first.device);
    expect(refused.headers.get("location")).toContain("error=");
    expect(await world.signedIn(out)).toBe(false);
    const kept = new Jar();
    expect((await world.signInWith(kept, second.device)).headers.get("location")).toBe(ORIGIN);
    expect(await world.signedIn(kept)).toBe(true);
  });

  test("another user's passkey is answered as an unknown one, and nothing is removed", async () => {
    const { world, jar } = await twoPasskeys();
    const other = await world.register(new Jar());
    const theirs = await world.remove(jar, other.credentialID);
    const unknown = await world.remove(jar, "AAAAAAAAAAAAAAAAAAAAAA==");
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    const [a, b] = [await theirs.json(), await unknown.json()];
    expect(a).toEqual(b);
    expect(a).toMatchObject({ error: "UnknownPasskey" });
    expect(await world.adapter.getAuthenticator!(other.credentialID)).not.toBeNull();
    expect(await world.adapter.getAccount!(other.credentialID, "passkey")).not.toBeNull();
  });

  test("no credential id is InvalidPasskey", async () => {
    const { world, jar } = await twoPasskeys();
    for (const value of [undefined, "", 42]) {
      const response = await world.remove(jar, value);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "InvalidPasskey" });
    }
  });

  test("the last way in is refused: LastWayIn, and the passkey stays", async () => {
    const world = passkeysWorld();
    const jar = new Jar();
    const only = await world.register(jar);
    const response = await world.remove(jar, only.credentialID);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "LastWayIn" });
    expect(await world.adapter.getAuthenticator!(only.credentialID)).not.toBeNull();
    expect(await world.adapter.getAccount!(only.credentialID, "passkey")).not.toBeNull();
  });

  test("two removals at once never leave the user without a passkey", async () => {
    const { world, jar, first, second, userId } = await twoPasskeys();
    const token = await csrfToken(world.config, jar);
    const removal = (credentialID: string) =>
      send(world.config, jar, "/auth/passkeys/remove", {
        json: { csrfToken: token, credentialID },
      });
    const answers = await Promise.all([removal(first.credentialID), removal(second.credentialID)]);
    const left = await world.adapter.listAuthenticatorsByUserId(userId);
    expect(left.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200).length).toBe(2 - left.length);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(await answer.json()).toMatchObject({ error: "LastWayIn" });
    }
    // What is left still signs in.
    const device = left[0]!.credentialID === first.credentialID ? first.device : second.device;
    const out = new Jar();
    expect((await world.signInWith(out, device)).headers.get("location")).toBe(ORIGIN);
  });

  test("a proven address with an email sign-in provider is another way in; an unproven one is not", async () => {
    const world = passkeysWorld({ providers: [emailProvider] });
    const jar = new Jar();
    const only = await world.register(jar);
    const userId = await world.ownerOf(only.credentialID);
    await world.adapter.updateUser!({ id: userId, email: "pk@example.com", emailVerified: null });
    const unproven = await world.remove(jar, only.credentialID);
    expect(await unproven.json()).toMatchObject({ error: "LastWayIn" });
    await world.adapter.updateUser!({ id: userId, emailVerified: new Date() });
    expect((await world.remove(jar, only.credentialID)).status).toBe(200);
    expect(await world.adapter.getAuthenticator!(only.credentialID)).toBeNull();
  });

  test("an OAuth account is another way in", async () => {
    const github = {
      id: "github",
      type: "oauth",
      name: "GitHub",
      clientId: "id",
      clientSecret: "secret",
      authorization: "https://github.example/authorize",
      token: "https://github.example/token",
      userinfo: "https://github.example/user",
    } as Provider;
    const world = passkeysWorld({ providers: [github] });
    const jar = new Jar();
    const only = await world.register(jar);
    const userId = await world.ownerOf(only.credentialID);
    expect((await world.remove(jar, only.credentialID)).status).toBe(400);
    await world.adapter.linkAccount!({
      userId,
      type: "oauth",
      provider: "github",
      providerAccountId: "gh-1",
    });
    expect((await world.remove(jar, only.credentialID)).status).toBe(200);
  });

  test("without the CSRF token nothing is removed", async () => {
    const { world, jar, first } = await twoPasskeys();
    const response = await send(world.config, jar, "/auth/passkeys/remove", {
      json: { credentialID: first.credentialID },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "MissingCSRF" });
    const wrong = await send(world.config, jar, "/auth/passkeys/remove", {
      json: { csrfToken: "forged", credentialID: first.credentialID },
    });
    expect(wrong.status).toBe(400);
    expect(await world.adapter.getAuthenticator!(first.credentialID)).not.toBeNull();
  });

  test("an adapter without deleteAuthenticator refuses clearly: PasskeyRemovalUnsupported, one error line", async () => {
    const world = passkeysWorld();
    const { deleteAuthenticator: _, ...lacking } = world.adapter;
    const config = { ...world.config, adapter: lacking as Adapter };
    const jar = new Jar();
    const send2 = (path: string, init: Parameters<typeof send>[3] = {}) =>
      send(config, jar, path, init);
    // Two passkeys, so that only the missing method stands in the way.
    const register = async () => {
      const device = new SoftAuthenticator();
      const asked = (await (
        await send2("/auth/webauthn-options/passkey?action=register")
      ).json()) as { options: Parameters<SoftAuthenticator["register"]>[0] };
      await send2("/auth/callback/passkey", {
        form: { action: "register", data: JSON.stringify(device.register(asked.options, ORIGIN)) },
      });
      return Buffer.from(device.credentials.at(-1)!.id, "base64url").toString("base64");
    };
    const id = await register();
    await register();
    const response = await send2("/auth/passkeys/remove", {
      json: { csrfToken: await csrfToken(config, jar), credentialID: id },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "PasskeyRemovalUnsupported" });
    expect(await world.adapter.getAuthenticator!(id)).not.toBeNull();
    const errors = world.logger.error.mock.calls.map(([e]) => String((e as Error).message));
    expect(errors.some((m) => m.includes("deleteAuthenticator"))).toBe(true);
  });

  test("a browser form is sent on to its callbackUrl", async () => {
    const { world, jar, first } = await twoPasskeys();
    const response = await send(world.config, jar, "/auth/passkeys/remove", {
      form: {
        csrfToken: await csrfToken(world.config, jar),
        credentialID: first.credentialID,
        callbackUrl: "/account",
      },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/account`);
    expect(await world.adapter.getAuthenticator!(first.credentialID)).toBeNull();
  });
});

describe("step-up: a user with two-factor sign-in", () => {
  async function twoFactorUser() {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    const { world, jar, first, second, userId } = await twoPasskeys(
      passkeysWorld({ config: { twoFactor: TwoFactor(), session: { strategy: "database" } } }),
    );
    const post = async (path: string, body: Record<string, unknown> = {}) =>
      send(world.config, jar, `/auth/${path}`, {
        json: { csrfToken: await csrfToken(world.config, jar), ...body },
      });
    const enrolled = await post("two-factor/enroll");
    expect(enrolled.status).toBe(200);
    const { secret } = (await enrolled.json()) as { secret: string };
    expect(
      (await post("two-factor/confirm", { code: await totpCode(secret, totpStep()) })).status,
    ).toBe(200);
    return { world, jar, first, second, userId };
  }

  test("a sign-in over ten minutes old is refused: 403 ReauthenticationRequired with signInUrl, nothing removed", async () => {
    const { world, jar, first, userId } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const response = await world.remove(jar, first.credentialID);
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: string; signInUrl: string };
    expect(body.error).toBe("ReauthenticationRequired");
    expect(new URL(body.signInUrl).pathname).toBe("/auth/signin");
    expect(await world.adapter.getAuthenticator!(first.credentialID)).not.toBeNull();
    const events = await world.securityLog.list(userId, { limit: 50 });
    expect(events.find((e) => e.type === "stepUpRequired")).toMatchObject({
      reason: "passkeys/remove",
    });
    expect(events.some((e) => e.type === ("passkeyRemoved" as never))).toBe(false);
  });

  test("within ten minutes of the sign-in the removal goes through", async () => {
    const { world, jar, first } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:09:00Z"));
    expect((await world.remove(jar, first.credentialID)).status).toBe(200);
  });

  test("a fetch caller's callbackUrl is where the sign-in comes back to", async () => {
    const { world, jar, first } = await twoFactorUser();
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const response = await world.remove(jar, first.credentialID, { callbackUrl: "/account" });
    const { signInUrl } = (await response.json()) as { signInUrl: string };
    expect(new URL(signInUrl).searchParams.get("callbackUrl")).toBe(`${ORIGIN}/account`);
  });
});
