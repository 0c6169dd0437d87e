/**
 * OAuth sign-ins through `Auth()` against a real OpenID provider, on every real store: 20
 * concurrent first sign-ins of one account leave one user and one account and 20 working
 * database sessions (also through a provider that links by email); a second provider with the
 * same email is refused unless `allowDangerousEmailAccountLinking` links it.
 */

import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET } from "../../packages/core/test/helpers.js";
import {
  atProvider,
  beginSignIn,
  deliver,
  expectNoSessionCookie,
  expectOneError,
  loggedErrors,
  SESSION_COOKIE,
  sessionOf,
  signInError,
  signInThrough,
  twoIdps,
} from "../../packages/core/test/support/oauth-flow.js";
import {
  type OidcServer,
  startOidcProvider,
} from "../../packages/core/test/support/oidc-server.js";
import { allStores, type OpenStore, storeBlock } from "./stores.js";

const FILE = "oauth-race.test.ts";
const CALLBACK_URL = `${ORIGIN}/dashboard`;

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op?.close());

/** `idp` and `idp2`: two clients of the one OpenID provider, both vouching for the same email. */
function configFor(store: OpenStore, options: { linkByEmail?: boolean } = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter: store.adapter,
    session: { strategy: "database" },
    providers: twoIdps(op, { allowDangerousEmailAccountLinking: options.linkByEmail ?? false }),
  };
  return { config, logger };
}

/** How many times each value occurs. */
function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Signs in as the provider's account `account` (its email is `<account>@example.com`). */
const as = (account: string) => ({ query: { login_hint: account } });

/**
 * 20 first sign-ins of the provider account `account` at `providerId`: the 20 round trips at the
 * provider first, then the 20 callbacks at once, each with its own jar, so they really race.
 */
async function race(config: AuthConfig, providerId: string, account: string) {
  const flows = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const jar = new Jar();
      const url = await beginSignIn(config, jar, providerId, {
        ...as(account),
        form: { callbackUrl: CALLBACK_URL },
      });
      return { jar, answer: await atProvider(url) };
    }),
  );
  const responses = await Promise.all(flows.map(({ jar, answer }) => deliver(config, jar, answer)));
  return {
    jars: flows.map(({ jar }) => jar),
    outcomes: tally(responses.map((r) => `${r.status} ${r.headers.get("location")}`)),
  };
}

/** Each distinct logged error (its type, message and first cause), with how often it was logged. */
const errorsOf = (logger: Parameters<typeof loggedErrors>[0]) =>
  tally(loggedErrors(logger).map((e) => e.split(" <- ").slice(0, 2).join(" <- ")));

/** Every jar holds its own session cookie, and GET /auth/session returns the account's user. */
async function expectSignedIn(config: AuthConfig, jars: Jar[], account: string) {
  expect(new Set(jars.map((jar) => jar.cookies.get(SESSION_COOKIE))).size).toBe(jars.length);
  const sessions = await Promise.all(jars.map((jar) => sessionOf(config, jar)));
  for (const session of sessions) {
    expect(session?.user).toEqual({
      name: `User ${account}`,
      email: `${account}@example.com`,
      image: `https://img.example/${account}.png`,
    });
  }
}

for (const kind of allStores) {
  await storeBlock(FILE, kind, (store) => {
    // First in the block, so the store is empty and its totals are this test's rows.
    test("20 concurrent first sign-ins of one account: one user, one account, 20 sessions", async () => {
      const { config, logger } = configFor(store());
      const { jars, outcomes } = await race(config, "idp", "user-1");
      const errors = errorsOf(logger);
      expect(outcomes, JSON.stringify(errors, null, 2)).toEqual({ [`302 ${CALLBACK_URL}`]: 20 });
      expect(errors).toEqual({});
      expect(await store().counts()).toEqual({ users: 1, accounts: 1, sessions: 20 });
      await expectSignedIn(config, jars, "user-1");
    });

    test("the same race through a provider with allowDangerousEmailAccountLinking", async () => {
      const { config, logger } = configFor(store(), { linkByEmail: true });
      const before = await store().counts();
      const { jars, outcomes } = await race(config, "idp2", "racer");
      const errors = errorsOf(logger);
      expect(outcomes, JSON.stringify(errors, null, 2)).toEqual({ [`302 ${CALLBACK_URL}`]: 20 });
      expect(errors).toEqual({});
      expect(await store().counts()).toEqual({
        users: before.users + 1,
        accounts: before.accounts + 1,
        sessions: before.sessions + 20,
      });
      await expectSignedIn(config, jars, "racer");
    });

    test("a second provider with the same email is refused: OAuthAccountNotLinked", async () => {
      const { config, logger } = configFor(store());
      const first = await signInThrough(config, new Jar(), "idp", as("refused"));
      expect(first.headers.get("location")).toBe(ORIGIN);
      const before = await store().counts();

      const jar = new Jar();
      const response = await signInThrough(config, jar, "idp2", as("refused"));
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
      expectNoSessionCookie(response);
      expectOneError(logger, "OAuthAccountNotLinked");
      expect(await sessionOf(config, jar)).toBeNull();
      expect(await store().counts()).toEqual(before);
    });

    test("with allowDangerousEmailAccountLinking the second provider is linked to the user", async () => {
      const { config, logger } = configFor(store(), { linkByEmail: true });
      const first = await signInThrough(config, new Jar(), "idp", as("linked"));
      expect(first.headers.get("location")).toBe(ORIGIN);
      const before = await store().counts();

      const jar = new Jar();
      const response = await signInThrough(config, jar, "idp2", as("linked"));
      expect(response.headers.get("location")).toBe(ORIGIN);
      expect(await store().counts()).toEqual({
        users: before.users,
        accounts: before.accounts + 1,
        sessions: before.sessions + 1,
      });
      const linked = await store().adapter.getUserByAccount!({
        provider: "idp2",
        providerAccountId: "linked",
      });
      expect(linked?.email).toBe("linked@example.com");
      expect(
        await store().adapter.getUserByAccount!({ provider: "idp", providerAccountId: "linked" }),
      ).toEqual(linked);
      expect((await sessionOf(config, jar))?.user?.email).toBe("linked@example.com");
      expect(logger.error).not.toHaveBeenCalled();
    });
  });
}
