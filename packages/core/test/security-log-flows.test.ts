/**
 * The security log across real sign-in flows: email links (a verified address, a linked email
 * account) and OpenID Connect through oidc-provider (a linked second provider, a refused sign-in
 * of a known user).
 */
import { listSecurityEvents } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import Passkey from "@gatehousejs/core/providers/passkey";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig, SecurityEvent } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";
import { followLink } from "./support/email-link.js";
import { emailWorld } from "./support/email-world.js";
import { signInThrough, twoIdps } from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

const summary = (events: SecurityEvent[]) =>
  events.map((e) => [e.type, e.provider, e.providerType]).reverse();

describe("email sign-in", () => {
  function logged() {
    const world = emailWorld();
    const linkAccount = vi.fn();
    world.config.events = { linkAccount };
    world.config.securityLog = { store: MemorySecurityEventStore() };
    return { ...world, linkAccount };
  }

  test("a new address records emailVerified then signIn, and no link (the user is new)", async () => {
    const { config, memory, emailSignIn } = logged();
    await emailSignIn("new@example.com");
    const user = await memory.getUserByEmail("new@example.com");
    expect(summary(await listSecurityEvents(config, user!.id))).toEqual([
      ["emailVerified", "email", "email"],
      ["signIn", "email", "email"],
    ]);
    await emailSignIn("new@example.com");
    const again = await listSecurityEvents(config, user!.id);
    expect(summary(again).slice(2)).toEqual([["signIn", "email", "email"]]);
  });

  test("an existing unverified user: its sessions ended, emailVerified and the email account linked, once", async () => {
    const { config, memory, emailSignIn, linkAccount } = logged();
    await memory.createUser({ id: "u1", email: "old@example.com", emailVerified: null });
    await emailSignIn("old@example.com");
    expect(summary(await listSecurityEvents(config, "u1"))).toEqual([
      // Proving an unproven address ends whatever sessions the user had (docs/security.md).
      ["sessionRevoked", null, null],
      ["emailVerified", "email", "email"],
      ["accountLinked", "email", "email"],
      ["signIn", "email", "email"],
    ]);
    expect(linkAccount).toHaveBeenCalledTimes(1);
    await emailSignIn("old@example.com");
    expect(summary(await listSecurityEvents(config, "u1")).slice(4)).toEqual([
      ["signIn", "email", "email"],
    ]);
  });
});

describe("OpenID Connect sign-in", () => {
  let op: OidcServer;
  beforeAll(async () => {
    op = await startOidcProvider();
  });
  afterAll(() => op.close());

  function setup(overrides: Partial<AuthConfig> = {}) {
    const adapter = MemoryAdapter();
    const linkAccount = vi.fn();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      adapter,
      events: { linkAccount },
      securityLog: { store: MemorySecurityEventStore() },
      providers: twoIdps(op),
      ...overrides,
    };
    const ownerOf = (provider: string, providerAccountId: string) =>
      adapter.rows.account({ provider, providerAccountId })?.userId;
    return { config, linkAccount, ownerOf };
  }

  test("a second provider linked by the signed-in user is recorded as accountLinked", async () => {
    const { config, ownerOf, linkAccount } = setup();
    const jar = new Jar();
    await signInThrough(config, jar, "idp");
    const user = ownerOf("idp", "user-1")!;
    expect(summary(await listSecurityEvents(config, user))).toEqual([["signIn", "idp", "oidc"]]);
    await signInThrough(config, jar, "idp2", { query: { login_hint: "user-2" } });
    expect(ownerOf("idp2", "user-2")).toBe(user);
    expect(summary(await listSecurityEvents(config, user))).toEqual([
      ["signIn", "idp", "oidc"],
      ["accountLinked", "idp2", "oidc"],
      ["signIn", "idp2", "oidc"],
    ]);
    expect(linkAccount).toHaveBeenCalledTimes(2);
  });

  test("a known user refused by the signIn callback is recorded as signInFailed", async () => {
    let allow = true;
    const { config, ownerOf } = setup({ callbacks: { signIn: () => allow } });
    await signInThrough(config, new Jar(), "idp");
    allow = false;
    const response = await signInThrough(config, new Jar(), "idp");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    const [latest] = await listSecurityEvents(config, ownerOf("idp", "user-1")!);
    expect(latest).toMatchObject({ type: "signInFailed", provider: "idp", reason: "AccessDenied" });
  });
});

describe("passkeys", () => {
  test("a passkey added by a signed-in user is accountLinked; signing in with it is a passkey signIn", async () => {
    const mailed: string[] = [];
    const adapter = MemoryAdapter();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: recordingLogger(),
      experimental: { enableWebAuthn: true },
      securityLog: { store: MemorySecurityEventStore() },
      providers: [
        Passkey(),
        Email({
          sendVerificationRequest: ({ url }) => {
            mailed.push(url);
          },
        }),
      ],
    };
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await send(config, jar, "/auth/signin/email", {
      form: { csrfToken: csrf, email: "owner@example.com" },
    });
    const link = new URL(mailed.at(-1)!);
    await followLink(config, jar, link);
    const owner = (await adapter.getUserByEmail("owner@example.com"))!;

    const ceremony = async (browser: Jar, action: "register" | "authenticate") => {
      const answer = await send(config, browser, `/auth/webauthn-options/passkey?action=${action}`);
      const { options } = (await answer.json()) as { options: never };
      const data =
        action === "register"
          ? device.register(options, ORIGIN)
          : device.authenticate(options, ORIGIN);
      return send(config, browser, "/auth/callback/passkey", {
        form: { action, data: JSON.stringify(data) },
      });
    };
    const device = new SoftAuthenticator();
    expect((await ceremony(jar, "register")).headers.get("location")).toBe(ORIGIN);
    expect((await ceremony(new Jar(), "authenticate")).headers.get("location")).toBe(ORIGIN);

    expect(summary(await listSecurityEvents(config, owner.id))).toEqual([
      ["emailVerified", "email", "email"],
      ["signIn", "email", "email"],
      ["accountLinked", "passkey", "webauthn"],
      ["signIn", "passkey", "webauthn"],
      ["signIn", "passkey", "webauthn"],
    ]);
  });
});
