/**
 * When the adapter fails to store a link. Two providers on one OpenID provider say the user is
 * `user-1@example.com` (verified); the second allows dangerous email linking, so its first
 * sign-in links to the user the first one created — unless `linkAccount` fails.
 */

import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET } from "./helpers.js";
import { loggedFailures } from "./support/failures.js";
import { expectNoSessionCookie, sessionOf, signInThrough, twoIdps } from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

/** How the next `linkAccount` call misbehaves. */
type Failure =
  | "none"
  /** Throws before writing anything. */
  | "throws"
  /** Another sign-in of the same account linked it to the same user first; this write fails. */
  | "lost-race-same-user"
  /** Another sign-in linked the account to a different user first; this write fails. */
  | "lost-race-other-user";

function setup(strategy: "jwt" | "database" = "database") {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const linked = vi.fn();
  const signedIn = vi.fn();
  let failure: Failure = "none";
  const linkAccount = adapter.linkAccount!.bind(adapter);
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    session: { strategy },
    events: { linkAccount: linked, signIn: signedIn },
    providers: twoIdps(op, { allowDangerousEmailAccountLinking: true }),
    adapter: {
      ...adapter,
      async linkAccount(account: AdapterAccount) {
        const mode = failure;
        failure = "none";
        if (mode === "throws") throw new Error("the database is unavailable");
        if (mode === "lost-race-same-user") await linkAccount(account);
        if (mode === "lost-race-other-user") {
          const other = await adapter.createUser!({
            id: "someone-else",
            email: "someone-else@example.com",
            emailVerified: null,
          });
          await linkAccount({ ...account, userId: other.id });
        }
        if (mode !== "none") throw new Error("duplicate key value violates unique constraint");
        return linkAccount(account);
      },
    },
  };
  const ownerOf = (provider: string) =>
    adapter.rows.account({ provider, providerAccountId: "user-1" })?.userId;
  return {
    adapter,
    config,
    logger,
    linked,
    signedIn,
    ownerOf,
    failNextLink: (mode: Failure) => {
      failure = mode;
    },
  };
}

describe.each(["database", "jwt"] as const)("dangerous email linking (%s sessions)", (strategy) => {
  test("a linkAccount that fails: no session, no link, no linkAccount event", async () => {
    const { adapter, config, logger, linked, ownerOf, failNextLink } = setup(strategy);
    await signInThrough(config, new Jar(), "idp");
    logger.error.mockClear();
    failNextLink("throws");
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2");
    // A store that fails is the server's fault: the Configuration page, one AdapterError.
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expectNoSessionCookie(response);
    expect(await sessionOf(config, jar)).toBeNull();
    expect(ownerOf("idp2")).toBeUndefined();
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1 });
    expect(linked).toHaveBeenCalledTimes(1);
    expect(loggedFailures(logger)).toMatchObject([{ level: "error", type: "AdapterError" }]);
  });

  test("a link another sign-in of the same account already stored for this user: signed in", async () => {
    const { adapter, config, logger, ownerOf, signedIn, failNextLink } = setup(strategy);
    await signInThrough(config, new Jar(), "idp");
    signedIn.mockClear();
    failNextLink("lost-race-same-user");
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("idp2")).toBe(ownerOf("idp"));
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 2 });
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-1@example.com");
    expect(logger.error).not.toHaveBeenCalled();
    expect(signedIn).toHaveBeenCalledTimes(1);
    expect(signedIn.mock.calls[0]![0]).toMatchObject({ isNewUser: false });
  });

  test("a link that went to another user meanwhile: refused, nobody signed in", async () => {
    const { config, ownerOf, failNextLink } = setup(strategy);
    await signInThrough(config, new Jar(), "idp");
    failNextLink("lost-race-other-user");
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2");
    expect(response.headers.get("location")).not.toBe(ORIGIN);
    expectNoSessionCookie(response);
    expect(await sessionOf(config, jar)).toBeNull();
    expect(ownerOf("idp2")).toBe("someone-else");
  });
});

describe("linking to the signed-in user", () => {
  test("a linkAccount that fails: no link, the session stays who it was", async () => {
    const { adapter, config, linked, ownerOf, failNextLink } = setup("database");
    const jar = new Jar();
    await signInThrough(config, jar, "idp");
    failNextLink("throws");
    const response = await signInThrough(config, jar, "idp2");
    expect(response.headers.get("location")).toMatch(/[?&]error=/);
    expect(ownerOf("idp2")).toBeUndefined();
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1 });
    expect(linked).toHaveBeenCalledTimes(1);
    expect((await sessionOf(config, jar))?.user?.email).toBe("user-1@example.com");
  });
});
