/**
 * Who a passkey ceremony may create, find or sign in as (docs/security.md, "Passkeys"): no user
 * holding an unproven address, no registration that resolves to someone else's account, and
 * options that say nothing about who has an account.
 */
import type { AdapterAuthenticator } from "@gatehousejs/core/adapters";
import { type InMemoryAdapter, MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";
import { followLink } from "./support/email-link.js";

type CreationOptions = Parameters<SoftAuthenticator["register"]>[0];
type RequestOptions = Parameters<SoftAuthenticator["authenticate"]>[0];
type OptionsBody = { action?: string; options?: CreationOptions & RequestOptions; error?: string };

const ERROR_PAGE = `${ORIGIN}/auth/error?error=WebAuthnVerificationError`;

/**
 * A memory adapter whose `linkAccount` and `createAuthenticator` overwrite an existing row
 * instead of rejecting, as some key-value adapters do.
 */
function upsertingAdapter(): InMemoryAdapter {
  const base = MemoryAdapter();
  const authenticators = new Map<string, AdapterAuthenticator>();
  return {
    ...base,
    async linkAccount(account) {
      await base.unlinkAccount(account);
      return base.linkAccount(account);
    },
    async createAuthenticator(authenticator) {
      authenticators.set(authenticator.credentialID, { ...authenticator });
      return { ...authenticator };
    },
    async getAuthenticator(credentialID) {
      const found = authenticators.get(credentialID);
      return found ? { ...found } : null;
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId);
    },
    async updateAuthenticatorCounter(credentialID, counter) {
      const found = authenticators.get(credentialID);
      if (!found) throw new Error("no such authenticator");
      found.counter = counter;
      return { ...found };
    },
  };
}

function setup(adapter: InMemoryAdapter = MemoryAdapter(), overrides: Partial<AuthConfig> = {}) {
  const mailed: string[] = [];
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: recordingLogger(),
    experimental: { enableWebAuthn: true },
    providers: [
      Passkey(),
      Email({
        sendVerificationRequest: ({ url }) => {
          mailed.push(url);
        },
      }),
    ],
    ...overrides,
  };
  return { adapter, config, mailed };
}

async function options(config: AuthConfig, jar: Jar, query = "") {
  const response = await send(config, jar, `/auth/webauthn-options/passkey${query}`);
  return { response, body: (await response.json()) as OptionsBody };
}

function post(config: AuthConfig, jar: Jar, action: string, data: unknown) {
  return send(config, jar, "/auth/callback/passkey", {
    form: { action, data: JSON.stringify(data) },
  });
}

async function session(config: AuthConfig, jar: Jar) {
  return (await (await send(config, jar, "/auth/session")).json()) as {
    user?: { email?: string | null };
  } | null;
}

/** Registers `device` from `jar` (signed in or not) and returns the callback's response. */
async function register(
  config: AuthConfig,
  jar: Jar,
  device: SoftAuthenticator,
  query = "?action=register",
  pick: { credentialId?: string } = {},
) {
  const { body } = await options(config, jar, query);
  expect(body.action).toBe("register");
  return post(config, jar, "register", device.register(body.options!, ORIGIN, pick));
}

/** Signs in through the email provider as `address`; the jar ends up holding the session. */
async function signInByEmail(config: AuthConfig, mailed: string[], jar: Jar, address: string) {
  const token = await csrfToken(config, jar);
  await send(config, jar, "/auth/signin/email", { form: { csrfToken: token, email: address } });
  const link = new URL(mailed.at(-1)!);
  return followLink(config, jar, link);
}

const storedId = (device: SoftAuthenticator) =>
  Buffer.from(device.credentials.at(-1)!.id, "base64url").toString("base64");

describe("passkey sign-up never claims an address", () => {
  test("a signed-out registration creates a user without an email, whatever address it names", async () => {
    const { adapter, config } = setup();
    const jar = new Jar();
    const device = new SoftAuthenticator();
    const done = await register(config, jar, device, "?action=register&email=victim@example.com");
    expect(done.headers.get("location")).toBe(ORIGIN);
    const authenticator = (await adapter.getAuthenticator(storedId(device)))!;
    const user = (await adapter.getUser(authenticator.userId))!;
    expect(user.email).toBe("");
    expect(user.emailVerified).toBeNull();
    expect(await adapter.getUserByEmail("victim@example.com")).toBeNull();
    // Signed in, as a user without an address (stored as "", the adapters' "no email").
    const current = await session(config, jar);
    expect(current?.user).toBeDefined();
    expect(current?.user?.email).toBeFalsy();
  });

  test("a passkey registered 'for' an address never signs into the account its owner later makes", async () => {
    const { adapter, config, mailed } = setup();
    const attacker = new SoftAuthenticator();
    // Before the fix, the options endpoint answered `register` for an unknown address and the
    // user was created holding it, unverified.
    const browser = new Jar();
    const planted = await options(config, browser, "?email=victim@example.com");
    if (planted.body.action === "register") {
      await post(config, browser, "register", attacker.register(planted.body.options!, ORIGIN));
    } else {
      await register(config, new Jar(), attacker, "?action=register&email=victim@example.com");
    }

    const victim = new Jar();
    await signInByEmail(config, mailed, victim, "victim@example.com");
    const owner = (await adapter.getUserByEmail("victim@example.com"))!;
    expect(owner.emailVerified).toBeInstanceOf(Date);
    expect(await adapter.listAuthenticatorsByUserId(owner.id)).toEqual([]);

    const jar = new Jar();
    const { body } = await options(config, jar, "?action=authenticate");
    await post(config, jar, "authenticate", attacker.authenticate(body.options!, ORIGIN));
    expect((await session(config, jar))?.user?.email ?? null).not.toBe("victim@example.com");
  });

  test("a signed-in user's new passkey joins their own account", async () => {
    const { adapter, config, mailed } = setup();
    const jar = new Jar();
    await signInByEmail(config, mailed, jar, "owner@example.com");
    const owner = (await adapter.getUserByEmail("owner@example.com"))!;
    const device = new SoftAuthenticator();
    const { body } = await options(config, jar, "?action=register");
    expect(body.options!.user.name).toBe("owner@example.com");
    const done = await post(config, jar, "register", device.register(body.options!, ORIGIN));
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect((await adapter.getAuthenticator(storedId(device)))!.userId).toBe(owner.id);
    expect(adapter.rows.count().users).toBe(1);

    // And it signs the owner in later.
    const later = new Jar();
    const auth = await options(config, later);
    await post(config, later, "authenticate", device.authenticate(auth.body.options!, ORIGIN));
    expect((await session(config, later))?.user?.email).toBe("owner@example.com");
  });

  test("a registration begun signed in is refused when the session is gone, and the reverse", async () => {
    const { adapter, config, mailed } = setup();
    const jar = new Jar();
    await signInByEmail(config, mailed, jar, "owner@example.com");
    const begun = await options(config, jar, "?action=register");
    const signedOut = new Jar();
    signedOut.cookies.set("authjs.challenge", jar.cookies.get("authjs.challenge")!);
    const device = new SoftAuthenticator();
    const refused = await post(
      config,
      signedOut,
      "register",
      device.register(begun.body.options!, ORIGIN),
    );
    expect(refused.headers.get("location")).toBe(ERROR_PAGE);

    const anonymous = new Jar();
    const fresh = await options(config, anonymous, "?action=register");
    jar.cookies.set("authjs.challenge", anonymous.cookies.get("authjs.challenge")!);
    const second = await post(
      config,
      jar,
      "register",
      device.register(fresh.body.options!, ORIGIN),
    );
    expect(second.headers.get("location")).toBe(ERROR_PAGE);
    expect(adapter.rows.count()).toMatchObject({ users: 1, authenticators: 0 });
  });
});

describe("a registration never signs in as someone else", () => {
  async function victimWithPasskey(config: AuthConfig) {
    const device = new SoftAuthenticator();
    // The address is ignored now; before the fix it made the options answer `register`.
    await register(config, new Jar(), device, "?action=register&email=victim@example.com");
    return device;
  }

  for (const [name, make] of [
    ["an adapter that rejects duplicates", () => MemoryAdapter()],
    ["an adapter that upserts", upsertingAdapter],
  ] as const) {
    test(`a taken credential id is refused before anything is written (${name})`, async () => {
      const { adapter, config, mailed } = setup(make());
      const victim = await victimWithPasskey(config);
      const credentialId = victim.credentials[0]!.id;
      const before = (await adapter.getAuthenticator(storedId(victim)))!;
      const rows = adapter.rows.count();

      // Signed out (a passkey-only sign-up) and signed in to the attacker's own account.
      const signedIn = new Jar();
      await signInByEmail(config, mailed, signedIn, "attacker@example.com");
      const counted = adapter.rows.count();
      for (const jar of [new Jar(), signedIn]) {
        const attacker = new SoftAuthenticator();
        const sessionBefore = jar.cookies.get("authjs.session-token");
        const query = "?action=register&email=newcomer@example.com";
        const done = await register(config, jar, attacker, query, { credentialId });
        expect(done.status).toBe(302);
        expect(done.headers.get("location")).toBe(ERROR_PAGE);
        expect(jar.cookies.get("authjs.session-token")).toBe(sessionBefore);
      }
      expect(adapter.rows.count()).toEqual(counted);
      expect(counted.authenticators).toBe(rows.authenticators);
      expect(await adapter.getAuthenticator(storedId(victim))).toEqual(before);

      // The victim's passkey still works.
      const jar = new Jar();
      const { body } = await options(config, jar);
      const ok = await post(
        config,
        jar,
        "authenticate",
        victim.authenticate(body.options!, ORIGIN),
      );
      expect(ok.headers.get("location")).toBe(ORIGIN);
    });
  }

  test("a WebAuthn account already linked under the credential id is refused too", async () => {
    const { adapter, config } = setup(upsertingAdapter());
    const owner = await adapter.createUser({
      id: "owner",
      email: "owner@example.com",
      emailVerified: new Date(),
    });
    const credentialId = Buffer.alloc(32, 7).toString("base64url");
    await adapter.linkAccount({
      userId: owner.id,
      type: "webauthn",
      provider: "passkey",
      providerAccountId: Buffer.from(credentialId, "base64url").toString("base64"),
    });
    const jar = new Jar();
    const query = "?action=register&email=newcomer@example.com";
    const done = await register(config, jar, new SoftAuthenticator(), query, { credentialId });
    expect(done.headers.get("location")).toBe(ERROR_PAGE);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1, authenticators: 0 });
  });
});

describe("passkey options say nothing about who has an account", () => {
  test("signed out, known, unknown and absent addresses get the same answer, with no lookup", async () => {
    const adapter = MemoryAdapter();
    const getUserByEmail = vi.spyOn(adapter, "getUserByEmail");
    const { config, mailed } = setup(adapter);
    const jar = new Jar();
    await signInByEmail(config, mailed, jar, "known@example.com");
    await register(config, jar, new SoftAuthenticator());
    getUserByEmail.mockClear();

    for (const action of ["", "action=authenticate&", "action=register&"]) {
      const answers = [];
      for (const email of ["known@example.com", "unknown@example.com", ""]) {
        const { response, body } = await options(config, new Jar(), `?${action}email=${email}`);
        expect(response.status).toBe(200);
        // Only the random parts differ: the challenge and a registration's user handle.
        const user = body.options?.user ? { ...body.options.user, id: "" } : undefined;
        answers.push({ ...body, options: { ...body.options, challenge: "", user } });
        expect(body.options).not.toHaveProperty("allowCredentials");
        expect(body.options?.excludeCredentials ?? []).toEqual([]);
      }
      expect(answers[0]!.action).toBe(
        action.startsWith("action=register") ? "register" : "authenticate",
      );
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    }
    expect(getUserByEmail).not.toHaveBeenCalled();
  });

  test("signed in, authentication lists only the user's own credentials", async () => {
    const { config } = setup();
    const jar = new Jar();
    const device = new SoftAuthenticator();
    await register(config, jar, device);
    await register(config, new Jar(), new SoftAuthenticator());
    const { body } = await options(config, jar, "?action=authenticate");
    expect(body.options!.allowCredentials?.map((c) => c.id)).toEqual([device.credentials[0]!.id]);
  });
});
