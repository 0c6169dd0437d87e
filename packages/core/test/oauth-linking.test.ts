/**
 * Account linking through real OpenID Connect sign-ins: two providers ("idp" and "idp2") on the
 * same OpenID provider, both saying the user is `user-1@example.com` unless told otherwise by
 * `login_hint`.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { decode } from "@gatehousejs/core/jwt";
import type { OIDCOptions } from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, setCookies } from "./helpers.js";
import { expectOneFailure } from "./support/failures.js";
import {
  atProvider,
  beginSignIn,
  deliver,
  expectNoSessionCookie,
  SESSION_COOKIE,
  sessionOf,
  signInError,
  signInThrough,
  twoIdps,
} from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

function setup(options: { idp2?: OIDCOptions; strategy?: "jwt" | "database" } = {}) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const linkAccount = vi.fn();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    session: { strategy: options.strategy ?? "database" },
    events: { linkAccount },
    providers: twoIdps(op, options.idp2),
  };
  const ownerOf = (provider: string, providerAccountId = "user-1") =>
    adapter.rows.account({ provider, providerAccountId })?.userId;
  return { adapter, config, logger, linkAccount, ownerOf };
}

const as = (account: string) => ({ query: { login_hint: account } });

describe("a second provider with the same email", () => {
  test("is refused without allowDangerousEmailAccountLinking", async () => {
    const { adapter, config, logger } = setup();
    await signInThrough(config, new Jar(), "idp");
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expectOneFailure(logger, "OAuthAccountNotLinked", { level: "warn" });
    expect(await sessionOf(config, jar)).toBeNull();
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1 });
  });

  test("is linked to the existing user with allowDangerousEmailAccountLinking", async () => {
    const { adapter, config, logger, linkAccount, ownerOf } = setup({
      idp2: { allowDangerousEmailAccountLinking: true },
    });
    await signInThrough(config, new Jar(), "idp");
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("idp2")).toBe(ownerOf("idp"));
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 2 });
    expect(linkAccount).toHaveBeenCalledTimes(2);
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-1@example.com");
    expect(logger.error).not.toHaveBeenCalled();
  });
});

describe.each(["database", "jwt"] as const)("signed in (%s sessions)", (strategy) => {
  test("a new provider account is linked to the signed-in user", async () => {
    const { adapter, config, logger, linkAccount, ownerOf } = setup({ strategy });
    const jar = new Jar();
    await signInThrough(config, jar, "idp");
    const user = ownerOf("idp");
    // Another email at idp2: the link comes from the session, not from the email.
    const response = await signInThrough(config, jar, "idp2", as("user-2"));
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("idp2", "user-2")).toBe(user);
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 2 });
    expect(linkAccount).toHaveBeenCalledTimes(2);
    expect(linkAccount.mock.calls[1]![0]).toMatchObject({
      user: { id: user },
      account: { provider: "idp2", providerAccountId: "user-2", userId: user },
    });
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-1@example.com");
    expect(logger.error).not.toHaveBeenCalled();
  });

  test("an account that belongs to another user is refused and the session kept", async () => {
    const { adapter, config, logger, ownerOf } = setup({ strategy });
    await signInThrough(config, new Jar(), "idp", as("user-1"));
    const jar = new Jar();
    await signInThrough(config, jar, "idp", as("user-2"));
    const response = await signInThrough(config, jar, "idp", as("user-1"));
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expectOneFailure(logger, "OAuthAccountNotLinked", { level: "warn", text: /another user/ });
    expect(ownerOf("idp", "user-1")).not.toBe(ownerOf("idp", "user-2"));
    expect(adapter.rows.count()).toMatchObject({ users: 2, accounts: 2 });
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-2@example.com");
  });
});

test("20 concurrent first sign-ins of one account leave one user and one account", async () => {
  const { adapter, config, logger } = setup();
  const flows = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const jar = new Jar();
      return { jar, answer: await atProvider(await beginSignIn(config, jar, "idp")) };
    }),
  );
  const responses = await Promise.all(flows.map(({ jar, answer }) => deliver(config, jar, answer)));
  expect(responses.map((r) => r.headers.get("location"))).toEqual(Array(20).fill(ORIGIN));
  expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1, sessions: 20 });
  const sessions = await Promise.all(flows.map(({ jar }) => sessionOf(config, jar)));
  for (const session of sessions) expect(session?.user?.email).toBe("user-1@example.com");
  expect(logger.error).not.toHaveBeenCalled();
});

describe("without an adapter", () => {
  /** The session cookie's `sub` after a sign-in through `provider`. */
  async function subAfterSignIn(config: AuthConfig, provider: string, account = "user-1") {
    const done = await signInThrough(config, new Jar(), provider, as(account));
    const cookie = setCookies(done).get(SESSION_COOKIE)!.value;
    return (await decode({ token: cookie, secret: SECRET, salt: SESSION_COOKIE }))?.sub;
  }

  test("the same account id at two providers is two identities, each stable", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      providers: twoIdps(op),
    };
    const first = await subAfterSignIn(config, "idp");
    const second = await subAfterSignIn(config, "idp2");
    expect(first).toBe("idp:user-1");
    expect(second).toBe("idp2:user-1");
    expect(await subAfterSignIn(config, "idp")).toBe(first);
    expect(await subAfterSignIn(config, "idp", "user-2")).toBe("idp:user-2");
  });
});
