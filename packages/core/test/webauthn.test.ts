import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Passkey from "@gatehousejs/core/providers/passkey";
import WebAuthn from "@gatehousejs/core/providers/webauthn";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { resolveConfig } from "../src/lib/config.js";
import { attach } from "../src/lib/feature.js";
import { Jar, ORIGIN, recordingLogger, SECRET, send, setCookies } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";

type Options = Parameters<SoftAuthenticator["register"]>[0];
type RequestOptions = Parameters<SoftAuthenticator["authenticate"]>[0];

function setup(overrides: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger,
    experimental: { enableWebAuthn: true },
    providers: [Passkey()],
    ...overrides,
  };
  return { adapter, logger, config };
}

async function options(config: AuthConfig, jar: Jar, query = "") {
  const response = await send(config, jar, `/auth/webauthn-options/passkey${query}`);
  return {
    response,
    body: (await response.json()) as { action: string; options: Options & RequestOptions },
  };
}

async function post(config: AuthConfig, jar: Jar, action: string, data: unknown) {
  return send(config, jar, "/auth/callback/passkey", {
    form: { action, data: JSON.stringify(data) },
  });
}

/** Registers `device`: a new passkey-only user when `jar` is signed out. */
async function registerNew(config: AuthConfig, jar: Jar, device: SoftAuthenticator) {
  const { body } = await options(config, jar, "?action=register");
  expect(body.action).toBe("register");
  return post(config, jar, "register", device.register(body.options, ORIGIN));
}

/** The stored id of the device's newest credential (standard base64). */
const storedId = (device: SoftAuthenticator) =>
  Buffer.from(device.credentials.at(-1)!.id, "base64url").toString("base64");

describe("WebAuthn passkeys", () => {
  test("a new visitor registers a passkey: user, account, authenticator and a session", async () => {
    const { adapter, config } = setup();
    const device = new SoftAuthenticator();
    const jar = new Jar();
    const { response, body } = await options(config, jar, "?action=register");
    expect(response.status).toBe(200);
    expect(body.options.rp).toEqual({ name: "localhost:3000", id: "localhost" });
    // A passkey-only account has no address: the passkey is labelled with the site's name.
    expect(body.options.user.name).toBe("localhost:3000");
    expect(body.options.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    const challengeCookie = setCookies(response).get("authjs.challenge");
    expect(challengeCookie?.raw).toMatch(/Max-Age=900/);
    expect(challengeCookie?.value).not.toContain(body.options.challenge);

    const done = await post(config, jar, "register", device.register(body.options, ORIGIN));
    expect(done.headers.get("location")).toBe(ORIGIN);
    const session = await (await send(config, jar, "/auth/session")).json();
    expect(session.user).toBeDefined();

    const credentialID = storedId(device);
    const user = (await adapter.getUser!((await adapter.getAuthenticator!(credentialID))!.userId))!;
    expect(user).toMatchObject({ email: "", emailVerified: null });
    const [authenticator] = await adapter.listAuthenticatorsByUserId!(user.id);
    expect(authenticator).toMatchObject({
      credentialID,
      providerAccountId: credentialID,
      counter: 0,
      userId: user.id,
    });
    expect(await adapter.getAccount!(credentialID, "passkey")).toMatchObject({
      type: "webauthn",
      userId: user.id,
    });
    // The challenge is spent.
    expect(jar.cookies.has("authjs.challenge")).toBe(false);
  });

  test("a returning user authenticates with the passkey, and the counter moves", async () => {
    const { adapter, config } = setup();
    const device = new SoftAuthenticator();
    await registerNew(config, new Jar(), device);
    const jar = new Jar();
    const { body } = await options(config, jar);
    expect(body.action).toBe("authenticate");
    const done = await post(config, jar, "authenticate", device.authenticate(body.options, ORIGIN));
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect((await (await send(config, jar, "/auth/session")).json()).user).toBeDefined();
    expect((await adapter.getAuthenticator!(storedId(device)))!.counter).toBe(1);
  });

  test("signed out, an email names nobody: authentication options list no credentials", async () => {
    const { config } = setup();
    await registerNew(config, new Jar(), new SoftAuthenticator());
    const { body } = await options(config, new Jar(), "?email=new@example.com");
    expect(body.action).toBe("authenticate");
    expect(body.options).not.toHaveProperty("allowCredentials");
  });

  test("a signed-in user adds a second passkey to the same account", async () => {
    const { adapter, config } = setup();
    const jar = new Jar();
    await registerNew(config, jar, new SoftAuthenticator());
    const { body } = await options(config, jar);
    expect(body).toEqual({ error: "Invalid request" });
    const second = new SoftAuthenticator();
    const { body: register } = await options(config, jar, "?action=register");
    expect(register.action).toBe("register");
    expect(register.options.excludeCredentials).toHaveLength(1);
    const done = await post(config, jar, "register", second.register(register.options, ORIGIN));
    expect(done.headers.get("location")).toBe(ORIGIN);
    const { userId } = (await adapter.getAuthenticator!(storedId(second)))!;
    expect(await adapter.listAuthenticatorsByUserId!(userId)).toHaveLength(2);
    expect(adapter.rows.count().users).toBe(1);
  });

  test("signed out, a registration is for a new passkey-only user whatever email is named", async () => {
    const { config } = setup();
    await registerNew(config, new Jar(), new SoftAuthenticator());
    const { response, body } = await options(
      config,
      new Jar(),
      "?email=new@example.com&action=register",
    );
    expect(response.status).toBe(200);
    expect(body.action).toBe("register");
    expect(body.options.user.name).toBe("localhost:3000");
    expect(body.options.excludeCredentials).toEqual([]);
  });

  test("an unknown action answers 400 Invalid action", async () => {
    const { config } = setup();
    const { response, body } = await options(config, new Jar(), "?action=delete");
    expect(response.status).toBe(400);
    expect(body).toEqual({ error: "Invalid action" });
  });

  test("a response to another browser's challenge fails verification: error page, no session", async () => {
    const { config, logger } = setup();
    const device = new SoftAuthenticator();
    await registerNew(config, new Jar(), device);
    const victim = new Jar();
    const { body } = await options(config, victim);
    const attacker = new Jar();
    await options(config, attacker);
    const done = await post(
      config,
      attacker,
      "authenticate",
      device.authenticate(body.options, ORIGIN),
    );
    expect(done.headers.get("location")).toBe(
      `${ORIGIN}/auth/error?error=WebAuthnVerificationError`,
    );
    expect(attacker.cookies.has("authjs.session-token")).toBe(false);
    // Logged once, at whichever level the logger gives client mistakes.
    const logged = [...logger.error.mock.calls, ...logger.warn.mock.calls].flat();
    expect(logged).toContainEqual(expect.objectContaining({ type: "WebAuthnVerificationError" }));
  });

  test("without the challenge cookie the callback is an InvalidCheck", async () => {
    const { config } = setup();
    const device = new SoftAuthenticator();
    await registerNew(config, new Jar(), device);
    const { body } = await options(config, new Jar());
    const done = await post(
      config,
      new Jar(),
      "authenticate",
      device.authenticate(body.options, ORIGIN),
    );
    expect(done.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=InvalidCheck`);
  });

  test("a tampered signature, a wrong origin, garbage data and an unknown action are refused", async () => {
    const { config } = setup();
    const device = new SoftAuthenticator();
    await registerNew(config, new Jar(), device);
    const cases: Array<(o: RequestOptions) => [string, unknown]> = [
      (o) => {
        const r = device.authenticate(o, ORIGIN);
        const sig = Buffer.from(r.response.signature, "base64url");
        sig[sig.length - 1]! ^= 1;
        return [
          "authenticate",
          { ...r, response: { ...r.response, signature: sig.toString("base64url") } },
        ];
      },
      (o) => ["authenticate", device.authenticate(o, "https://evil.example")],
      () => ["authenticate", "not-an-object"],
      (o) => ["delete", device.authenticate(o, ORIGIN)],
    ];
    for (const make of cases) {
      const jar = new Jar();
      const { body } = await options(config, jar);
      const [action, data] = make(body.options);
      const done = await post(config, jar, action, data);
      expect(done.status).toBe(302);
      expect(done.headers.get("location")).toBe(
        `${ORIGIN}/auth/error?error=WebAuthnVerificationError`,
      );
      expect(jar.cookies.has("authjs.session-token")).toBe(false);
    }
  });

  test("the signIn callback can refuse or redirect a passkey sign-in", async () => {
    const device = new SoftAuthenticator();
    const signIn = vi.fn(() => "/not-now");
    const { adapter, config } = setup({ callbacks: { signIn } });
    const jar = new Jar();
    const done = await registerNew(config, jar, device);
    expect(done.headers.get("location")).toBe(`${ORIGIN}/not-now`);
    // Refused before anything was written.
    expect(adapter.rows.count()).toMatchObject({ users: 0, accounts: 0 });
    expect(signIn).toHaveBeenCalledWith(
      expect.objectContaining({ account: expect.objectContaining({ type: "webauthn" }) }),
    );
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
  });

  test("a configured relying party is used for the options and the verification", async () => {
    const { config } = setup({
      providers: [Passkey({ relayingParty: { id: "localhost", name: "Acme", origin: ORIGIN } })],
    });
    const { body } = await options(config, new Jar(), "?action=register");
    expect(body.options.rp).toEqual({ name: "Acme", id: "localhost" });
  });

  test("WebAuthn configuration errors are named at configuration time", async () => {
    const autofill = { email: { label: "Email", autocomplete: "username webauthn" } };
    const cases: Array<[Partial<AuthConfig>, string]> = [
      [{ experimental: {} }, "ExperimentalFeatureNotEnabled"],
      [
        {
          providers: [
            WebAuthn({ enableConditionalUI: true, formFields: autofill }),
            WebAuthn({ id: "other", enableConditionalUI: true, formFields: autofill }),
          ],
        },
        "DuplicateConditionalUI",
      ],
      [
        {
          providers: [
            WebAuthn({ enableConditionalUI: true, formFields: { email: { label: "Email" } } }),
          ],
        },
        "MissingWebAuthnAutocomplete",
      ],
      [
        { adapter: { ...MemoryAdapter(), createAuthenticator: undefined } },
        "MissingAdapterMethods",
      ],
    ];
    for (const [overrides, type] of cases) {
      const { config, logger } = setup(overrides);
      const response = await Auth(new Request(`${ORIGIN}/auth/session`), config);
      expect(response.status).toBe(500);
      expect(logger.error.mock.calls[0]![0]).toMatchObject({ type });
    }
  });
});

describe("what a passkey sign-in proves", () => {
  test("a passkey checked with the user's PIN or biometric is two factors (hwk, user)", async () => {
    const { config } = setup();
    const heard: (string[] | undefined)[] = [];
    attach(resolveConfig(config), {
      listeners: [{ signIn: (_ctx, moment) => void heard.push(moment.factors) }],
    });
    const device = new SoftAuthenticator();
    await registerNew(config, new Jar(), device);
    const jar = new Jar();
    const { body } = await options(config, jar);
    await post(config, jar, "authenticate", device.authenticate(body.options, ORIGIN));
    expect(heard).toEqual([
      ["hwk", "user"],
      ["hwk", "user"],
    ]);
  });
});
